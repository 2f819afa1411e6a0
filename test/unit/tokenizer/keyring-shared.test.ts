// One keyring.json, two Keyring objects (as two tokenizers on one volume): every change is made to the file as it
// is (locked read-merge-write), a changed file is reloaded, a retired version lingers only for opening, and a
// resplit on one survives the other's later writes.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { combine } from 'shamir-secret-sharing';
import { describe, expect, it } from 'vitest';
import { Keyring, NoRecoveryKeyError, RecoveryError, SharesError, parseShares, recoveryShares } from '../../../tokenizer/keyring.js';
import { KeyringError, openRecoveryCopy } from '../../../tokenizer/keyring-file.js';
import { ensureRecovery, loadKeyring } from '../../../tokenizer/keyring-start.js';

function pair() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
  const wrappingKey = randomBytes(32);
  const { keyring: a } = loadKeyring({ dataDir, wrappingKey }, () => {});
  const b = Keyring.open(a.file, wrappingKey);
  return { a, b, wrappingKey, file: a.file, dir: join(dataDir, 'tokenizer') };
}

const onDisk = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { active: number; versions: number[]; recovery?: string };

async function opensCopy(file: string, shares: string[]): Promise<boolean> {
  const doc = onDisk(file);
  try {
    openRecoveryCopy(Buffer.from(await combine(shares.map((s) => new Uint8Array(Buffer.from(s, 'hex'))))), doc.active, doc.versions, doc.recovery!);
    return true;
  } catch {
    return false;
  }
}

describe('a keyring shared by two tokenizers', () => {
  it('reloads a rotation made by the other, only when the file changed', () => {
    const { a, b } = pair();
    expect(b.reload().reloaded).toBe(false);
    expect(a.rotate()).toBe(2);
    expect(b.key(2)).toBeUndefined();
    expect(b.reloadWanted()).toBe(true);
    expect(b.reload()).toEqual({ reloaded: true, added: [2], removed: [] });
    expect(b.active).toBe(2);
    expect(b.key(2)!.equals(a.key(2)!)).toBe(true);
    expect(b.reload().reloaded).toBe(false);
    // Unchanged file: a second ask within the second is refused, so unknown versions cannot flood the disk.
    expect(b.reloadWanted()).toBe(true);
    expect(b.reloadWanted()).toBe(false);
  });

  it('never loses a version to a writer with a stale copy', () => {
    const { a, b, file, wrappingKey } = pair();
    for (let i = 0; i < 5; i++) {
      a.rotate();
      b.rotate(); // b has not reloaded: its write merges with the file as it is
    }
    expect(onDisk(file)).toMatchObject({ active: 11, versions: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] });
    a.reload();
    b.reload();
    const reopened = Keyring.open(file, wrappingKey);
    for (let v = 1; v <= 11; v++) {
      expect(a.key(v)!.equals(reopened.key(v)!)).toBe(true);
      expect(b.key(v)!.equals(reopened.key(v)!)).toBe(true);
    }
  });

  it('rotates once when both reach the seal limit of one version: the second finds it rotated and takes the new one', () => {
    const { a, b, file } = pair();
    expect(a.rotateFrom(1)).toBe(2);
    // b has not reloaded and still seals under 1: its automatic rotation checks the file's active version under the lock.
    expect(b.active).toBe(1);
    expect(b.rotateFrom(1)).toBeUndefined();
    expect(b.active).toBe(2);
    expect(b.key(2)!.equals(a.key(2)!)).toBe(true);
    expect(onDisk(file)).toMatchObject({ active: 2, versions: [1, 2] });
    // A manual rotation is not conditional.
    expect(b.rotate()).toBe(3);
    expect(a.rotateFrom(2)).toBeUndefined();
    expect(a.active).toBe(3);
  });

  it('keeps a version retired by the other for opening only, never writes it back, and retires it itself', () => {
    const { a, b, file } = pair();
    a.rotate();
    a.rotate();
    b.reload();
    const two = Buffer.from(b.key(2)!);
    a.retire(2);
    expect(a.key(2)).toBeUndefined();
    expect(b.reload().removed).toEqual([2]);
    expect(b.versions).toEqual([1, 3]);
    expect(b.key(2)!.equals(two)).toBe(true);
    b.rotate();
    expect(onDisk(file).versions).toEqual([1, 3, 4]);
    b.retire(2);
    expect(b.key(2)).toBeUndefined();
    expect(() => b.retire(2)).toThrow(/no master key version 2/);
    // The active version is refused even when this process has not seen it become active.
    a.rotate();
    expect(() => b.retire(5)).toThrow(/active version/);
    expect(onDisk(file).versions).toEqual([1, 3, 4, 5]);
  });

  it('refuses to write over a keyring re-sealed under another wrapping key, and keeps serving from memory', async () => {
    const { a, b, file } = pair();
    let shown = '';
    await ensureRecovery(a, (t) => (shown += t));
    const shares = [...shown.matchAll(/share \d: ([0-9a-f]+)/g)].map((m) => m[1]!);
    b.reload();
    const before = readFileSync(file);
    const next = await a.rewrap(shares.slice(0, 3));
    const resealed = readFileSync(file);
    expect(resealed.equals(before)).toBe(false);
    expect(() => b.reload()).toThrow(KeyringError);
    expect(() => b.rotate()).toThrow(KeyringError);
    expect(readFileSync(file).equals(resealed)).toBe(true);
    expect(b.key(1)!.equals(a.key(1)!)).toBe(true);
    expect(Keyring.open(file, next).versions).toEqual([1]);
  });

  it('a resplit on one survives the other\'s later writes: old shares void, new ones open', async () => {
    const { a, b, file } = pair();
    let shown = '';
    await ensureRecovery(a, (t) => (shown += t));
    const old = [...shown.matchAll(/share \d: ([0-9a-f]+)/g)].map((m) => m[1]!);
    b.reload();
    const fresh = await a.resplit([old[0]!, old[2]!, old[4]!]);
    expect(fresh).toHaveLength(5);
    b.rotate();
    b.rotate();
    expect(await opensCopy(file, old.slice(0, 3))).toBe(false);
    expect(await opensCopy(file, fresh.slice(2))).toBe(true);
    // And b, which never reloaded explicitly, re-splits with the new shares and refuses the old.
    await expect(b.resplit(old.slice(1, 4))).rejects.toThrow(RecoveryError);
    const third = await b.resplit(fresh.slice(0, 3));
    expect(await opensCopy(file, third.slice(1, 4))).toBe(true);
    expect(await opensCopy(file, fresh.slice(0, 3))).toBe(false);
  });

  it('checks shares before anything else, and says when there is no recovery key', async () => {
    const { a } = pair();
    const shares = await recoveryShares(randomBytes(32));
    await expect(a.resplit(shares.slice(0, 3))).rejects.toThrow(NoRecoveryKeyError);
    expect(() => parseShares(shares.slice(0, 2))).toThrow(SharesError);
    expect(() => parseShares([shares[0]!, shares[0]!, shares[1]!])).toThrow(/twice/);
    expect(() => parseShares([shares[0]!, shares[1]!, 'zz'])).toThrow(/not hex/);
    expect(() => parseShares([shares[0]!, shares[1]!, shares[2]!.slice(0, 10)])).toThrow(SharesError);
    const sameX = Buffer.from(shares[1]!, 'hex');
    sameX[sameX.length - 1] = Buffer.from(shares[0]!, 'hex').at(-1)!;
    expect(() => parseShares([shares[0]!, sameX.toString('hex'), shares[2]!])).toThrow(/same share number/);
    expect(parseShares(shares.slice(0, 3))).toHaveLength(3);
  });

  it('breaks a lock a crashed writer left, and leaves no lock behind', () => {
    const { a, dir, file } = pair();
    const lock = `${file}.lock`;
    writeFileSync(lock, '12345\n');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(a.rotate()).toBe(2);
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['keyring.json']);
  });
});
