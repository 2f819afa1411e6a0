// Sealed records: round trips, the byte layout, AAD binding to tenant/table/row, tampering and key versions.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import { seal, open, aadFor, SealError, SEAL_OVERHEAD, type SealFailure } from '../../../tokenizer/aead.js';

function freshKeys() {
  const dir = mkdtempSync(join(tmpdir(), 'sr-'));
  const wrappingKey = randomBytes(32);
  const { keyring } = loadKeyring({ dataDir: dir, wrappingKey }, () => {});
  return { dir, wrappingKey, keyring, keys: new Subkeys(keyring) };
}

function failure(fn: () => unknown): SealFailure | 'opened' {
  try {
    fn();
    return 'opened';
  } catch (err) {
    if (err instanceof SealError) return err.reason;
    throw err;
  }
}

const tenant = fc.integer({ min: 1, max: 2 ** 32 - 1 });
const name = fc.string({ minLength: 1, maxLength: 40, unit: 'binary' });

describe('seal and open', () => {
  const { keyring, keys } = freshKeys();

  it('round-trips any bytes for any tenant, table and row, in the documented layout', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), tenant, name, name, (bytes, t, table, row) => {
        const plain = Buffer.from(bytes);
        const sealed = seal(keys, keyring.active, { tenantId: t, table, rowId: row }, plain);
        expect(sealed[0]).toBe(0x01);
        expect(sealed.readUInt32BE(1)).toBe(keyring.active);
        expect(sealed.length).toBe(plain.length + SEAL_OVERHEAD);
        expect(SEAL_OVERHEAD).toBe(1 + 4 + 12 + 16);
        expect(open(keys, { tenantId: t, table, rowId: row }, sealed).equals(plain)).toBe(true);
      }),
    );
  });

  it('draws a fresh nonce each time', () => {
    const nonces = new Set(Array.from({ length: 200 }, () => seal(keys, 1, { tenantId: 1, table: 'users', rowId: 'r' }, Buffer.from('same')).subarray(5, 17).toString('hex')));
    expect(nonces.size).toBe(200);
  });

  it('does not open under any other tenant, table or row', () => {
    fc.assert(
      fc.property(fc.tuple(tenant, name, name), fc.tuple(tenant, name, name), fc.uint8Array({ maxLength: 64 }), (a, b, bytes) => {
        fc.pre(a[0] !== b[0] || a[1] !== b[1] || a[2] !== b[2]);
        const sealed = seal(keys, 1, { tenantId: a[0], table: a[1], rowId: a[2] }, Buffer.from(bytes));
        expect(failure(() => open(keys, { tenantId: b[0], table: b[1], rowId: b[2] }, sealed))).toBe('does-not-open');
      }),
    );
    const sealed = seal(keys, 1, { tenantId: 7, table: 'users', rowId: 'row-a' }, Buffer.from('{"email":"a@b.c"}'));
    expect(failure(() => open(keys, { tenantId: 8, table: 'users', rowId: 'row-a' }, sealed))).toBe('does-not-open');
    expect(failure(() => open(keys, { tenantId: 7, table: 'audit_events', rowId: 'row-a' }, sealed))).toBe('does-not-open');
    expect(failure(() => open(keys, { tenantId: 7, table: 'users', rowId: 'row-b' }, sealed))).toBe('does-not-open');
    expect(open(keys, { tenantId: 7, table: 'users', rowId: 'row-a' }, sealed).toString()).toBe('{"email":"a@b.c"}');
  });

  it('encodes the AAD unambiguously', () => {
    expect(aadFor(1, 'ab', 'c').equals(aadFor(1, 'a', 'bc'))).toBe(false);
    expect(aadFor(1, 'a\0\0\0\x01b', 'c').equals(aadFor(1, 'a', 'b\0\0\0\x01c'))).toBe(false);
    fc.assert(
      fc.property(fc.tuple(tenant, name, name), fc.tuple(tenant, name, name), (a, b) => {
        fc.pre(a[0] !== b[0] || a[1] !== b[1] || a[2] !== b[2]);
        expect(aadFor(...a).equals(aadFor(...b))).toBe(false);
      }),
    );
  });

  it('refuses any single flipped bit, with a typed error', () => {
    const plain = Buffer.from('a record worth protecting');
    const sealed = seal(keys, 1, { tenantId: 3, table: 'users', rowId: 'r1' }, plain);
    fc.assert(
      fc.property(fc.nat({ max: sealed.length * 8 - 1 }), (bit) => {
        const copy = Buffer.from(sealed);
        copy[bit >> 3] = copy[bit >> 3]! ^ (1 << (bit & 7));
        expect(failure(() => open(keys, { tenantId: 3, table: 'users', rowId: 'r1' }, copy))).not.toBe('opened');
      }),
    );
  });

  it('refuses short, empty and foreign input as malformed', () => {
    const sealed = seal(keys, 1, { tenantId: 3, table: 'users', rowId: 'r1' }, Buffer.alloc(0));
    expect(sealed).toHaveLength(SEAL_OVERHEAD);
    expect(open(keys, { tenantId: 3, table: 'users', rowId: 'r1' }, sealed)).toHaveLength(0);
    expect(failure(() => open(keys, { tenantId: 3, table: 'users', rowId: 'r1' }, sealed.subarray(0, SEAL_OVERHEAD - 1)))).toBe('malformed');
    expect(failure(() => open(keys, { tenantId: 3, table: 'users', rowId: 'r1' }, Buffer.alloc(0)))).toBe('malformed');
    expect(failure(() => open(keys, { tenantId: 3, table: 'users', rowId: 'r1' }, Buffer.from('{"not":"sealed at all, but long enough to pass"}')))).toBe('malformed');
  });
});

describe('key versions', () => {
  it('stamps the active version; after rotate old records still open and new ones carry the new version', () => {
    const { keyring, keys, dir, wrappingKey } = freshKeys();
    const old = seal(keys, keyring.active, { tenantId: 1, table: 'users', rowId: 'row' }, Buffer.from('before'));
    expect(old.readUInt32BE(1)).toBe(1);
    keyring.rotate();
    const fresh = seal(keys, keyring.active, { tenantId: 1, table: 'users', rowId: 'row' }, Buffer.from('after'));
    expect(fresh.subarray(1, 5)).toEqual(Buffer.from([0, 0, 0, 2]));
    // A restarted process (new keyring object, new subkey cache) opens both.
    const reopened = new Subkeys(loadKeyring({ dataDir: dir, wrappingKey }, () => {}).keyring);
    expect(open(reopened, { tenantId: 1, table: 'users', rowId: 'row' }, old).toString()).toBe('before');
    expect(open(reopened, { tenantId: 1, table: 'users', rowId: 'row' }, fresh).toString()).toBe('after');
  });

  it('names an unknown version instead of failing obscurely', () => {
    const { keys } = freshKeys();
    const sealed = seal(keys, 1, { tenantId: 1, table: 'users', rowId: 'row' }, Buffer.from('x'));
    sealed.writeUInt32BE(99, 1);
    expect(failure(() => open(keys, { tenantId: 1, table: 'users', rowId: 'row' }, sealed))).toBe('unknown-version');
    expect(() => open(keys, { tenantId: 1, table: 'users', rowId: 'row' }, sealed)).toThrow('no master key version 99 in the keyring');
    expect(() => seal(keys, 5, { tenantId: 1, table: 'users', rowId: 'row' }, Buffer.from('x'))).toThrow(SealError);
  });

  it('derives different record keys per tenant and per version', () => {
    const { keyring, keys } = freshKeys();
    keyring.rotate();
    const k = (v: number, t: number) => keys.derive(v, t, 'record')!.toString('hex');
    expect(new Set([k(1, 1), k(1, 2), k(2, 1), k(2, 2)]).size).toBe(4);
    expect(keys.derive(1, 1, 'record')).toBe(keys.derive(1, 1, 'record'));
    expect(keys.derive(1, 1, 'index')!.equals(keys.derive(1, 1, 'record')!)).toBe(false);
  });
});
