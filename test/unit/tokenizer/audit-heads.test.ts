// The tokenizer's record of each trail's newest committed head: it only moves forward, refuses an older head, is
// written atomically beside the keyring and read back at the next start, and merges with another tokenizer's file.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AuditCutError, AuditHeads } from '../../../tokenizer/audit-heads.js';

const log = pino({ level: 'silent' });
const salt = randomBytes(16);
const fresh = () => join(mkdtempSync(join(tmpdir(), 'sr-heads-')), 'keyring.json');

describe('the tokenizer\'s audit heads', () => {
  it('keep the newest head across a restart and refuse one older (generated)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 20 }), (seqs) => {
        const file = fresh();
        const heads = new AuditHeads(file, log);
        let newest = 0;
        for (const seq of seqs) {
          const link = randomBytes(32);
          if (seq < newest) expect(() => heads.raise(3, salt, seq, link)).toThrow(AuditCutError);
          else heads.raise(3, salt, seq, link);
          newest = Math.max(newest, seq);
        }
        heads.close();
        const again = new AuditHeads(file, log);
        expect(again.get(3, salt).seq).toBe(newest);
        if (newest > 0) expect(() => again.check(3, salt, newest - 1)).toThrow(/cut/);
        expect(() => again.check(3, salt, newest)).not.toThrow();
        // Another salt (another database's tenant 3) is another trail.
        expect(again.get(3, randomBytes(16)).seq).toBe(0);
      }),
      { numRuns: 30 },
    );
  });

  it('writes through a temporary file and keeps the newer head of another tokenizer\'s file', () => {
    const file = fresh();
    const a = new AuditHeads(file, log);
    const b = new AuditHeads(file, log);
    a.raise(1, salt, 10, randomBytes(32));
    a.save();
    b.raise(2, salt, 5, randomBytes(32));
    b.save();
    const c = new AuditHeads(file, log);
    expect([c.get(1, salt).seq, c.get(2, salt).seq]).toEqual([10, 5]);
    expect(readdirSync(join(file, '..')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(a.file)).toBe(true);
  });

  it('writes a change to the disk by itself, shortly after, without being closed', async () => {
    const file = fresh();
    const heads = new AuditHeads(file, log);
    heads.raise(4, salt, 42, randomBytes(32));
    heads.raise(4, salt, 43, randomBytes(32));
    await expect.poll(() => (existsSync(heads.file) ? new AuditHeads(file, log).get(4, salt).seq : 0), { timeout: 5_000 }).toBe(43);
  });

  it('saves at close what a write still in flight holds (the process may end before it lands)', async () => {
    const file = fresh();
    const heads = new AuditHeads(file, log);
    heads.raise(5, salt, 7, randomBytes(32));
    // The timed save has begun (its write is out) and nothing else is pending: close now, and read without waiting.
    await expect.poll(() => (heads as unknown as { writing?: Promise<void> }).writing !== undefined, { timeout: 5_000, interval: 1 }).toBe(true);
    heads.close();
    expect(new AuditHeads(file, log).get(5, salt).seq).toBe(7);
    // The write that was out lands nowhere afterwards: no older copy over the closing one, no temporary file left.
    await (heads as unknown as { writing?: Promise<void> }).writing;
    expect(new AuditHeads(file, log).get(5, salt).seq).toBe(7);
    expect(readdirSync(join(file, '..')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses to start on a file that is not its own', () => {
    const file = fresh();
    writeFileSync(join(file, '..', 'audit-heads.json'), '{"v":2}');
    expect(() => new AuditHeads(file, log)).toThrow(/not an audit heads file/);
  });
});
