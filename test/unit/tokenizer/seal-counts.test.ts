// Seal counting against the 2^32 limit: counts per version, a warning near the setting, rotation at it, and counts
// that survive a restart with the unsaved margin added.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SealCounts } from '../../../tokenizer/seal-counts.js';

function counter(rotateAfter: number, file = join(mkdtempSync(join(tmpdir(), 'sr-seals-')), 'keyring.seals')) {
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg as string) });
  let active = 1;
  const counts = new SealCounts(file, rotateAfter, log, () => void (active += 1), () => active);
  return { counts, warnings, file, active: () => active };
}

describe('SealCounts', () => {
  it('warns near the setting and rotates at it, counting each version apart', () => {
    const c = counter(100);
    c.counts.add(1, 89);
    expect(c.warnings).toEqual([]);
    c.counts.add(1, 1);
    expect(c.warnings).toEqual(['master key version nears its seal limit: it will rotate']);
    expect(c.active()).toBe(1);
    c.counts.add(1, 10);
    expect(c.active()).toBe(2);
    expect(c.warnings.at(-1)).toBe('master key version reached its seal limit: rotating');
    // A version no longer active never triggers again.
    c.counts.add(1, 500);
    expect(c.active()).toBe(2);
    c.counts.add(2, 3);
    expect(Object.fromEntries(c.counts.all)).toEqual({ 1: 600, 2: 3 });
    // Rewrapping more keys than the setting allows must not rotate again at once: a warning instead.
    c.counts.add(2, 200);
    expect(c.active()).toBe(2);
    expect(c.warnings.at(-1)).toMatch(/rotated less than an hour ago/);
  });

  it('keeps counts across a restart, adding what may have gone unsaved', () => {
    const c = counter(2 ** 30);
    c.counts.add(1, 1234);
    c.counts.save();
    expect(JSON.parse(readFileSync(c.file, 'utf8'))).toEqual({ 1: 1234 });
    const again = counter(2 ** 30, c.file);
    expect(again.counts.all.get(1)).toBe(1234 + 2 ** 20);
  });
});
