// Seal counting against the 2^32 limit, with several tokenizers on one keyring directory: each writes its own file,
// every decision uses the sum over all files (the old single file included), a warning near the setting, one
// rotation at it, and counts that survive a restart or a crash with the unsaved margin added.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { SealCounts } from '../../../tokenizer/seal-counts.js';
import { LEGACY_UNSAVED, legacySealFile, readOtherSeals, sumSeals } from '../../../tokenizer/seal-files.js';

const KEYRING_ID = '0123456789abcdef';

const root = mkdtempSync(join(tmpdir(), 'sr-seals-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function keyringFile(): string {
  return join(mkdtempSync(join(root, 'k-')), 'keyring.json');
}

/** A counter as a tokenizer makes it; `state.active` is the keyring's active version, shared by every counter of a file. */
function counter(rotateAfter: number, file = keyringFile(), state = { active: 1, rotations: 0 }) {
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg as string) });
  const counts = new SealCounts({
    keyringFile: file,
    keyringId: KEYRING_ID,
    rotateAfter,
    log,
    // As Keyring.rotateFrom: rotates only if `from` is still the active version.
    rotate: (from) => {
      if (state.active !== from) return;
      state.active += 1;
      state.rotations += 1;
    },
    active: () => state.active,
  });
  return { counts, warnings, file, state };
}

/** What any tokenizer of this keyring would count now. */
const sumOnDisk = (file: string) => sumSeals(readOtherSeals(file, KEYRING_ID, 'none').records);

describe('SealCounts', () => {
  it('warns near the setting and rotates at it, counting each version apart', () => {
    const c = counter(100);
    c.counts.add(1, 89);
    expect(c.warnings).toEqual([]);
    c.counts.add(1, 1);
    expect(c.warnings).toEqual(['master key version nears its seal limit: it will rotate']);
    expect(c.state.active).toBe(1);
    c.counts.add(1, 10);
    expect(c.state.active).toBe(2);
    expect(c.warnings.at(-1)).toBe('master key version reached its seal limit: rotating');
    // A version no longer active never triggers again.
    c.counts.add(1, 500);
    expect(c.state.active).toBe(2);
    c.counts.add(2, 3);
    expect(Object.fromEntries(c.counts.all)).toEqual({ 1: 600, 2: 3 });
    // Rewrapping more keys than the setting allows must not rotate again at once: a warning instead.
    c.counts.add(2, 200);
    expect(c.state.active).toBe(2);
    expect(c.warnings.at(-1)).toMatch(/rotated less than an hour ago/);
  });

  it('rotates on the sum of two tokenizers that neither reaches alone, once', () => {
    const file = keyringFile();
    const state = { active: 1, rotations: 0 };
    const a = counter(100, file, state);
    const b = counter(100, file, state);
    a.counts.add(1, 60);
    b.counts.add(1, 29);
    expect(state.rotations).toBe(0);
    expect(b.warnings).toEqual([]);
    b.counts.add(1, 1);
    expect(b.warnings).toEqual(['master key version nears its seal limit: it will rotate']);
    a.counts.add(1, 10);
    expect(state).toEqual({ active: 2, rotations: 1 });
    // b still seals under 1 (it has not seen the rotation): it reaches the limit too, and takes a's version.
    b.counts.add(1, 1);
    expect(state).toEqual({ active: 2, rotations: 1 });
    expect(a.counts.all.get(1)).toBe(101);
    expect(b.counts.all.get(1)).toBe(101);
    expect(readdirSync(join(file, '..')).filter((n) => n.startsWith('keyring.json.seals.'))).toHaveLength(2);
  });

  it('keeps counts across a restart: a clean stop exactly, a crash with its unsaved margin', () => {
    const file = keyringFile();
    const first = counter(2 ** 30, file);
    first.counts.add(1, 1234);
    first.counts.close();
    const second = counter(2 ** 30, file);
    expect(second.counts.all.get(1)).toBe(1234);
    second.counts.add(1, 5);
    // second crashes: its file says 1239 - 1234 = 5 was written (a version's first seal is written at once)...
    const third = counter(2 ** 30, file);
    // ...and may have made up to 2^20 - 1 more that it never wrote.
    expect(third.counts.all.get(1)).toBe(1234 + 5 + 2 ** 20 - 1);
  });

  it('counts the single file of earlier versions, with the margin they added at every start, and never rewrites it', () => {
    const file = keyringFile();
    writeFileSync(legacySealFile(file), JSON.stringify({ 1: 5000, 2: 7 }));
    const c = counter(2 ** 30, file);
    expect(Object.fromEntries(c.counts.all)).toEqual({ 1: 5000 + LEGACY_UNSAVED, 2: 7 + LEGACY_UNSAVED });
    c.counts.add(2, 3);
    c.counts.close();
    expect(JSON.parse(readFileSync(legacySealFile(file), 'utf8'))).toEqual({ 1: 5000, 2: 7 });
    expect(sumOnDisk(file).get(2)).toBe(7 + LEGACY_UNSAVED + 3);
  });

  it('ignores files of another keyring and reports a damaged file without counting it', () => {
    const file = keyringFile();
    const c = counter(2 ** 30, file);
    c.counts.add(1, 4);
    writeFileSync(`${file}.seals.aaaaaaaaaaaaaaaa`, JSON.stringify({ format: 'strongroom-seals-v1', instance: 'a', keyring: 'ffffffffffffffff', closed: true, unsaved: 0, seals: { 1: 99 } }));
    writeFileSync(`${file}.seals.bbbbbbbbbbbbbbbb`, '{"format":');
    expect(c.counts.all.get(1)).toBe(4);
    expect(c.warnings.filter((w) => /cannot be read/.test(w))).toHaveLength(1);
    expect(c.counts.all.get(1)).toBe(4);
    expect(c.warnings.filter((w) => /cannot be read/.test(w))).toHaveLength(1);
  });
});

describe('the sum over instance files', () => {
  it('any split of N seals over K tokenizers that stopped cleanly sums to N', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 1, max: 5000 }), { maxLength: 6 }), { minLength: 1, maxLength: 5 }), (splits) => {
        const file = keyringFile();
        const state = { active: 1, rotations: 0 };
        for (const adds of splits) {
          const c = counter(2 ** 30, file, state);
          for (const n of adds) c.counts.add(1, n);
          c.counts.close();
        }
        const n = splits.flat().reduce((a, b) => a + b, 0);
        expect(sumOnDisk(file).get(1) ?? 0).toBe(n);
        expect(counter(2 ** 30, file, state).counts.all.get(1) ?? 0).toBe(n);
      }),
      { numRuns: 40 },
    );
  });

  it('no write of one tokenizer lowers the sum, and the sum never falls below the seals made', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ who: fc.nat(2), version: fc.integer({ min: 1, max: 3 }), n: fc.integer({ min: 1, max: 3000 }), sync: fc.boolean() }), { maxLength: 40 }),
        // rotateAfter decides how often each writes (every rotateAfter/1024 seals), so small and large both run.
        fc.constantFrom(1024, 200_000, 2 ** 30),
        (steps, rotateAfter) => {
          const file = keyringFile();
          // No rotation here: the active version is out of reach.
          const state = { active: 99, rotations: 0 };
          const cs = [0, 1, 2].map(() => counter(rotateAfter, file, state));
          const made = new Map<number, number>();
          let last = new Map<number, number>();
          for (const s of steps) {
            cs[s.who]!.counts.add(s.version, s.n);
            if (s.sync) cs[s.who]!.counts.sync();
            made.set(s.version, (made.get(s.version) ?? 0) + s.n);
            // What a fourth tokenizer reads, and what each of the three uses, never drop, and cover every seal.
            const now = sumOnDisk(file);
            for (const [v, n] of last) expect(now.get(v) ?? 0).toBeGreaterThanOrEqual(n);
            for (const [v, n] of made) expect(now.get(v) ?? 0).toBeGreaterThanOrEqual(n);
            for (const c of cs) for (const [v, n] of made) expect(c.counts.all.get(v) ?? 0).toBeGreaterThanOrEqual(n);
            last = now;
          }
          // A clean stop turns a file's bound (its count plus what may be unwritten) into the exact count.
          for (const c of cs) c.counts.close();
          expect(sumOnDisk(file)).toEqual(made);
        },
      ),
      { numRuns: 40 },
    );
  });
});
