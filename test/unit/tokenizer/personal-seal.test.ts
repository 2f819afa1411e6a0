// The personal format 0x03 (a one-time key per seal, derived from the data key and a random salt): round trips,
// any damage or other binding fails, 0x02 written before it still opens, and no two seals share a key or nonce.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derivedKeyOf, openPersonal, PERSONAL_FORMAT, PERSONAL_FORMAT_V2, sealPersonal, sealPersonalV2 } from '../../../tokenizer/envelope.js';
import { SealError } from '../../../tokenizer/aead.js';

const tenant = fc.integer({ min: 1, max: 2 ** 32 - 1 });
const name = fc.string({ minLength: 1, maxLength: 40, unit: 'binary' });
const binding = fc.tuple(tenant, name, name, name);
const dataKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((a) => Buffer.from(a));
const bytes = fc.uint8Array({ maxLength: 2048 }).map((a) => Buffer.from(a));
const placeOf = ([tenantId, table, rowId, subject]: [number, string, string, string]) => ({ tenantId, table, rowId, subject });

function fails(fn: () => unknown): boolean {
  try {
    fn();
    return false;
  } catch (err) {
    if (!(err instanceof SealError)) throw err;
    return true;
  }
}

describe('personal seal format 0x03', () => {
  it('round-trips any plaintext under any binding, and is written as 0x03 with 41 bytes of overhead', () => {
    fc.assert(
      fc.property(dataKey, binding, bytes, (key, [t, table, row, subject], plain) => {
        const sealed = sealPersonal(key, { tenantId: t, table, rowId: row, subject }, plain);
        expect(sealed[0]).toBe(PERSONAL_FORMAT);
        expect(sealed.length).toBe(plain.length + 1 + 24 + 16);
        expect(openPersonal(key, { tenantId: t, table, rowId: row, subject }, sealed).equals(plain)).toBe(true);
      }),
    );
  });

  it('fails on any flipped bit, anywhere, including the format byte and the salt', () => {
    fc.assert(
      fc.property(dataKey, binding, bytes, fc.nat(), fc.integer({ min: 0, max: 7 }), (key, [t, table, row, subject], plain, at, bit) => {
        const sealed = sealPersonal(key, { tenantId: t, table, rowId: row, subject }, plain);
        const i = at % sealed.length;
        sealed[i]! ^= 1 << bit;
        expect(fails(() => openPersonal(key, { tenantId: t, table, rowId: row, subject }, sealed))).toBe(true);
      }),
    );
  });

  it('fails when truncated or extended', () => {
    fc.assert(
      fc.property(dataKey, binding, bytes, fc.integer({ min: 1, max: 64 }), (key, [t, table, row, subject], plain, cut) => {
        const sealed = sealPersonal(key, { tenantId: t, table, rowId: row, subject }, plain);
        expect(fails(() => openPersonal(key, { tenantId: t, table, rowId: row, subject }, sealed.subarray(0, Math.max(0, sealed.length - cut))))).toBe(true);
        expect(fails(() => openPersonal(key, { tenantId: t, table, rowId: row, subject }, Buffer.concat([sealed, randomBytes(cut)])))).toBe(true);
      }),
    );
  });

  it('does not open under another tenant, table, row, person or data key', () => {
    fc.assert(
      fc.property(dataKey, dataKey, binding, binding, bytes, (key, otherKey, a, b, plain) => {
        fc.pre(a[0] !== b[0] || a[1] !== b[1] || a[2] !== b[2] || a[3] !== b[3]);
        const sealed = sealPersonal(key, placeOf(a), plain);
        expect(fails(() => openPersonal(key, placeOf(b), sealed))).toBe(true);
        fc.pre(!key.equals(otherKey));
        expect(fails(() => openPersonal(otherKey, placeOf(a), sealed))).toBe(true);
      }),
    );
  });

  it('still opens 0x02, written under the data key itself before 0x03, with the same bindings', () => {
    fc.assert(
      fc.property(dataKey, binding, binding, bytes, (key, a, b, plain) => {
        const old = sealPersonalV2(key, placeOf(a), plain);
        expect(old[0]).toBe(PERSONAL_FORMAT_V2);
        expect(openPersonal(key, placeOf(a), old).equals(plain)).toBe(true);
        const flipped = Buffer.from(old);
        flipped[flipped.length - 1]! ^= 1;
        expect(fails(() => openPersonal(key, placeOf(a), flipped))).toBe(true);
        fc.pre(a[0] !== b[0] || a[1] !== b[1] || a[2] !== b[2] || a[3] !== b[3]);
        expect(fails(() => openPersonal(key, placeOf(b), old))).toBe(true);
      }),
    );
  });

  it('refuses other format bytes', () => {
    const key = randomBytes(32);
    const sealed = sealPersonal(key, { tenantId: 1, table: 't', rowId: 'r', subject: 's' }, Buffer.from('x'));
    for (const f of [0x00, 0x01, 0x04, 0xff]) {
      const other = Buffer.from(sealed);
      other[0] = f;
      expect(() => openPersonal(key, { tenantId: 1, table: 't', rowId: 'r', subject: 's' }, other)).toThrow('not a personal sealed record');
    }
  });

  it('never gives two seals of the same plaintext the same derived key and nonce', () => {
    const key = randomBytes(32);
    const plain = Buffer.from('{"name":"the same profile, sealed again and again"}');
    const seen = new Set<string>();
    const ciphertexts = new Set<string>();
    const N = 20_000;
    for (let i = 0; i < N; i++) {
      const sealed = sealPersonal(key, { tenantId: 7, table: 'users', rowId: 'row', subject: 'person' }, plain);
      const once = derivedKeyOf(key, sealed);
      expect(once.length).toBe(44);
      // Neither the whole key ‖ nonce nor either half repeats; nor does the data key itself appear.
      seen.add(once.toString('hex'));
      seen.add(`k${once.subarray(0, 32).toString('hex')}`);
      seen.add(`n${once.subarray(32).toString('hex')}`);
      expect(once.subarray(0, 32).equals(key)).toBe(false);
      ciphertexts.add(sealed.subarray(25).toString('hex'));
    }
    expect(seen.size).toBe(3 * N);
    expect(ciphertexts.size).toBe(N);
  });
});
