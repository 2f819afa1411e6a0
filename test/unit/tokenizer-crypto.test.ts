// The tokenizer's cryptography: keyring sealing and rotation, AAD-bound records, blind indexes.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Keyring, KeyringError } from '../../tokenizer/keyring.js';
import { Subkeys } from '../../tokenizer/subkeys.js';
import { seal, open, aadFor, SealError } from '../../tokenizer/aead.js';
import { blindIndex, normalise } from '../../tokenizer/blind-index.js';
import { runBatch } from '../../tokenizer/server.js';

function freshKeyring() {
  const dir = mkdtempSync(join(tmpdir(), 'srk-'));
  const wrappingKey = randomBytes(32);
  const { keyring, created } = Keyring.openOrCreate(dir, wrappingKey);
  return { dir, wrappingKey, keyring, created, keys: new Subkeys(keyring) };
}

describe('keyring', () => {
  it('is created once, sealed at rest with private file modes, and reopens with its wrapping key', () => {
    const { dir, wrappingKey, keyring, created } = freshKeyring();
    expect(created).toBe(true);
    const file = join(dir, 'keyring.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(keyring.key(1)!.toString('hex'));
    const again = Keyring.openOrCreate(dir, wrappingKey);
    expect(again.created).toBe(false);
    expect(again.keyring.key(1)!.equals(keyring.key(1)!)).toBe(true);
  });

  it('refuses a wrong wrapping key and never overwrites the keyring', () => {
    const { dir } = freshKeyring();
    const before = readFileSync(join(dir, 'keyring.json'), 'utf8');
    expect(() => Keyring.openOrCreate(dir, randomBytes(32))).toThrow(KeyringError);
    expect(readFileSync(join(dir, 'keyring.json'), 'utf8')).toBe(before);
  });

  it('detects a tampered keyring file', () => {
    const { dir, wrappingKey } = freshKeyring();
    const file = join(dir, 'keyring.json');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const blob = Buffer.from(doc.sealed, 'base64');
    blob[20] = blob[20]! ^ 1;
    writeFileSync(file, JSON.stringify({ ...doc, sealed: blob.toString('base64') }));
    expect(() => Keyring.open(file, wrappingKey)).toThrow(KeyringError);
  });

  it('rotates: a new active version persists and old ciphertexts still open', () => {
    const { dir, wrappingKey, keyring, keys } = freshKeyring();
    const old = seal(keys, keyring.active, 1, 'users', 'row', Buffer.from('before'));
    expect(keyring.rotate()).toBe(2);
    const reopened = Keyring.openOrCreate(dir, wrappingKey).keyring;
    expect(reopened.active).toBe(2);
    expect(reopened.versions).toEqual([1, 2]);
    const keys2 = new Subkeys(reopened);
    const fresh = seal(keys2, reopened.active, 1, 'users', 'row', Buffer.from('after'));
    expect(fresh.readUInt32BE(1)).toBe(2);
    expect(open(keys2, 1, 'users', 'row', old).toString()).toBe('before');
    expect(open(keys2, 1, 'users', 'row', fresh).toString()).toBe('after');
  });
});

describe('sealed records', () => {
  const { keyring, keys } = freshKeyring();

  it('round-trips any bytes for any tenant, table and row', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.integer({ min: 1, max: 2 ** 31 }), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (bytes, tenant, table, row) => {
        const plain = Buffer.from(bytes);
        const sealed = seal(keys, keyring.active, tenant, table, row, plain);
        expect(sealed[0]).toBe(0x01);
        expect(sealed.length).toBe(plain.length + 1 + 4 + 12 + 16);
        expect(open(keys, tenant, table, row, sealed).equals(plain)).toBe(true);
      }),
    );
  });

  it('uses a fresh nonce every time', () => {
    const a = seal(keys, 1, 1, 'users', 'r', Buffer.from('same'));
    const b = seal(keys, 1, 1, 'users', 'r', Buffer.from('same'));
    expect(a.equals(b)).toBe(false);
  });

  it('fails to open when moved to another tenant, table or row, or when tampered', () => {
    const sealed = seal(keys, 1, 7, 'users', 'row-a', Buffer.from('{"email":"a@b.c"}'));
    expect(() => open(keys, 8, 'users', 'row-a', sealed)).toThrow(SealError);
    expect(() => open(keys, 7, 'audit_events', 'row-a', sealed)).toThrow(SealError);
    expect(() => open(keys, 7, 'users', 'row-b', sealed)).toThrow(SealError);
    const flipped = Buffer.from(sealed);
    flipped[30] = flipped[30]! ^ 0x80;
    expect(() => open(keys, 7, 'users', 'row-a', flipped)).toThrow(SealError);
    expect(() => open(keys, 7, 'users', 'row-a', sealed.subarray(0, 20))).toThrow(SealError);
    const unknownVersion = Buffer.from(sealed);
    unknownVersion.writeUInt32BE(99, 1);
    expect(() => open(keys, 7, 'users', 'row-a', unknownVersion)).toThrow(/version 99/);
  });

  it('encodes the AAD unambiguously', () => {
    expect(aadFor(1, 'ab', 'c').equals(aadFor(1, 'a', 'bc'))).toBe(false);
  });
});

describe('blind indexes', () => {
  const { keys } = freshKeyring();

  it.each([
    ['EMAIL', '  Ada%40Example.COM ', 'ada@example.com'],
    ['EMAIL', 'bad%zz@x.io', 'bad%zz@x.io'],
    ['PHONE', '07700 900123', '+447700900123'],
    ['PHONE', '+1 (415) 555-2671', '+14155552671'],
    ['PHONE', '4444', '4444'],
    ['PHONE', ' 48-213 ', '48213'],
    ['LOGIN', '  ada ', 'ada'],
    ['CUSTOM', ' ext-1 ', 'ext-1'],
    ['DEDUPE', ' as is ', ' as is '],
  ] as const)('normalises %s %j to %j', (kind, input, expected) => {
    expect(normalise(kind, input)).toBe(expected);
  });

  it('is stable, per tenant, separated by kind, and empty for empty values', () => {
    const a = blindIndex(keys, 1, 'EMAIL', 'ADA@example.com');
    expect(a).toHaveLength(32);
    expect(blindIndex(keys, 1, 'EMAIL', ' ada@example.com').equals(a)).toBe(true);
    expect(blindIndex(keys, 2, 'EMAIL', 'ada@example.com').equals(a)).toBe(false);
    expect(blindIndex(keys, 1, 'LOGIN', 'ada@example.com').equals(a)).toBe(false);
    expect(blindIndex(keys, 1, 'LOGIN', '   ')).toHaveLength(0);
  });

  it('stays the same after key rotation, so stored indexes keep working', () => {
    const { keyring, keys: k } = freshKeyring();
    const before = blindIndex(k, 3, 'PHONE', '+447700900123');
    keyring.rotate();
    expect(blindIndex(new Subkeys(keyring), 3, 'PHONE', '+447700900123').equals(before)).toBe(true);
  });

  it('normalisation is idempotent', () => {
    fc.assert(
      fc.property(fc.constantFrom('EMAIL', 'PHONE', 'LOGIN', 'CUSTOM') as fc.Arbitrary<'EMAIL'>, fc.string(), (kind, s) => {
        const once = normalise(kind, s);
        expect(normalise(kind, once)).toBe(once);
      }),
    );
  });
});

describe('runBatch validation', () => {
  const { keyring, keys } = freshKeyring();
  const empty = { tenant_id: 1, hash: [], seal: [], open: [] };

  it('names the bad item', () => {
    expect(() => runBatch(keys, keyring.active, { ...empty, tenant_id: 0 })).toThrow('tenant_id must be 1 or more');
    expect(() => runBatch(keys, keyring.active, { ...empty, hash: [{ kind: 'INDEX_KIND_UNSPECIFIED', value: 'x' }] })).toThrow('hash[0].kind');
    expect(() => runBatch(keys, keyring.active, { ...empty, seal: [{ table: 'users', row_id: '', plaintext: Buffer.from('x') }] })).toThrow('seal[0].row_id is empty');
    expect(() => runBatch(keys, keyring.active, { ...empty, open: [{ table: 'users', row_id: 'r', ciphertext: Buffer.from('junk') }] })).toThrow('open[0]: not a sealed record');
  });
});
