// FF1 against NIST's sample vectors and a line-by-line rendering of the standard; limits; batch equals single.
import { createCipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Ff1, MAX_LENGTH, MAX_RADIX, MAX_TWEAK } from '../../../tokenizer/ff1.js';

const K128 = '2B7E151628AED2A6ABF7158809CF4F3C';
const K192 = `${K128}EF4359D8D580AA4F`;
const K256 = `${K192}7F036D6F04FC6A94`;
const DIGITS = '0123456789';
const BASE36 = '0123456789abcdefghi';
const TWEAK_10 = '39383736353433323130';
const TWEAK_36 = '3737373770717273373737';

// NIST SP 800-38G FF1 samples 1 to 9: key, radix, tweak, plaintext, ciphertext.
const SAMPLES: [number, string, number, string, string, string][] = [
  [1, K128, 10, '', DIGITS, '2433477484'],
  [2, K128, 10, TWEAK_10, DIGITS, '6124200773'],
  [3, K128, 36, TWEAK_36, BASE36, 'a9tv40mll9kdu509eum'],
  [4, K192, 10, '', DIGITS, '2830668132'],
  [5, K192, 10, TWEAK_10, DIGITS, '2496655549'],
  [6, K192, 36, TWEAK_36, BASE36, 'xbj3kv35jrawxv32ysr'],
  [7, K256, 10, '', DIGITS, '6657667009'],
  [8, K256, 10, TWEAK_10, DIGITS, '1001623463'],
  [9, K256, 36, TWEAK_36, BASE36, 'xs8a0azh2avyalyzuwd'],
];

/** FF1 as the standard writes it: BigInts, a fresh CBC-MAC per round, no shortcuts. Slow and obviously right. */
function referenceEncrypt(key: Buffer, radix: number, tweak: Buffer, x: string): string {
  const aes = `aes-${key.length * 8}`;
  const n = x.length;
  const t = tweak.length;
  const u = Math.floor(n / 2);
  const v = n - u;
  const num = (s: string) => [...s].reduce((acc, c) => acc * BigInt(radix) + BigInt(parseInt(c, 36)), 0n);
  const bytes = (value: bigint, length: number) => Buffer.from(value.toString(16).padStart(2 * length, '0'), 'hex');
  let a = x.slice(0, u);
  let b = x.slice(u);
  const bLen = Math.ceil(Math.ceil(v * Math.log2(radix)) / 8);
  const d = 4 * Math.ceil(bLen / 4) + 4;
  const p = Buffer.concat([Buffer.from([1, 2, 1]), bytes(BigInt(radix), 3), Buffer.from([10, u % 256]), bytes(BigInt(n), 4), bytes(BigInt(t), 4)]);
  for (let i = 0; i < 10; i++) {
    const q = Buffer.concat([tweak, Buffer.alloc((((-t - bLen - 1) % 16) + 16) % 16), Buffer.from([i]), bytes(num(b), bLen)]);
    const r = createCipheriv(`${aes}-cbc`, key, Buffer.alloc(16)).setAutoPadding(false).update(Buffer.concat([p, q])).subarray(-16);
    let s = r;
    for (let j = 1; s.length < d; j++) {
      const block = Buffer.from(r.map((byte, k) => byte ^ bytes(BigInt(j), 16)[k]!));
      s = Buffer.concat([s, createCipheriv(`${aes}-ecb`, key, null).setAutoPadding(false).update(block)]);
    }
    const y = BigInt(`0x${s.subarray(0, d).toString('hex')}`);
    const m = i % 2 === 0 ? u : v;
    const c = (num(a) + y) % BigInt(radix) ** BigInt(m);
    a = b;
    b = c.toString(radix).padStart(m, '0');
  }
  return a + b;
}

/** The shortest length radix^length >= 1,000,000 allows. */
const minLength = (radix: number) => Math.ceil(6 / Math.log10(radix) - 1e-9);

// Lengths are drawn uniformly: fast-check's own array sizes stay near the minimum, and long values and
// tweaks are where FF1 needs more than one block (of tweak, of NUM(B), of round output).
const bytesArb = (min: number, max: number) =>
  fc.integer({ min, max }).chain((len) => fc.uint8Array({ minLength: len, maxLength: len }).map((b) => Buffer.from(b)));
const keyArb = fc.constantFrom(16, 24, 32).chain((len) => bytesArb(len, len));
const tweakArb = bytesArb(0, 48);
const numeralsArb = (radix: number, longest: number) =>
  fc
    .integer({ min: minLength(radix), max: Math.max(minLength(radix), longest) })
    .chain((len) => fc.array(fc.integer({ min: 0, max: radix - 1 }), { minLength: len, maxLength: len }))
    .map((ds) => ds.map((d) => d.toString(radix)).join(''));
/** A radix and a value of it, from the shortest allowed length to `longest`. */
const valueArb = (longest: number) =>
  fc.integer({ min: 2, max: MAX_RADIX }).chain((radix) => numeralsArb(radix, longest).map((value) => ({ radix, value })));

describe('FF1', () => {
  it.each(SAMPLES)('matches NIST sample %i both ways', (_, key, radix, tweak, plaintext, ciphertext) => {
    const ff1 = new Ff1(Buffer.from(key, 'hex'));
    expect(ff1.encrypt(radix, Buffer.from(tweak, 'hex'), plaintext)).toBe(ciphertext);
    expect(ff1.decrypt(radix, Buffer.from(tweak, 'hex'), ciphertext)).toBe(plaintext);
  });

  it('matches all nine samples in lockstep, whatever the mix of tweaks and lengths', () => {
    for (const key of [K128, K192, K256]) {
      const samples = SAMPLES.filter((s) => s[1] === key);
      const ff1 = new Ff1(Buffer.from(key, 'hex'));
      for (const radix of [10, 36]) {
        const mine = samples.filter((s) => s[2] === radix);
        const tweaks = mine.map((s) => Buffer.from(s[3], 'hex'));
        expect(ff1.encryptAll(radix, tweaks, mine.map((s) => s[4]))).toEqual(mine.map((s) => s[5]));
        expect(ff1.decryptAll(radix, tweaks, mine.map((s) => s[5]))).toEqual(mine.map((s) => s[4]));
      }
    }
  });

  it('agrees with the standard written out, for any key size, radix, length and tweak', () => {
    // Up to 80 numerals: radix-36 halves then need more than one block of round output (d > 16).
    fc.assert(
      fc.property(keyArb, valueArb(80), tweakArb, (key, { radix, value }, tweak) => {
        expect(new Ff1(key).encrypt(radix, tweak, value)).toBe(referenceEncrypt(key, radix, tweak, value));
      }),
      { numRuns: 300 },
    );
  });

  it('decrypts what it encrypts, up to the maximum length', () => {
    fc.assert(
      fc.property(keyArb, valueArb(MAX_LENGTH), tweakArb, (key, { radix, value }, tweak) => {
        const ff1 = new Ff1(key);
        const encrypted = ff1.encrypt(radix, tweak, value);
        expect(encrypted).toHaveLength(value.length);
        expect(encrypted).toMatch(new RegExp(`^[${'0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, radix)}]*$`));
        expect(ff1.decrypt(radix, tweak, encrypted)).toBe(value);
      }),
      { numRuns: 200 },
    );
  });

  it('gives in a batch exactly what it gives one by one', () => {
    // Few lengths and tweak lengths, so that items share lockstep groups as well as split into several.
    const itemArb = (radix: number) => fc.record({ tweak: bytesArb(0, 12), value: numeralsArb(radix, minLength(radix) + 3) });
    const batchArb = fc.integer({ min: 2, max: MAX_RADIX }).chain((radix) => fc.record({ radix: fc.constant(radix), items: fc.array(itemArb(radix), { maxLength: 30 }) }));
    fc.assert(
      fc.property(keyArb, batchArb, (key, { radix, items }) => {
        const ff1 = new Ff1(key);
        const tweaks = items.map((i) => i.tweak);
        const encrypted = ff1.encryptAll(radix, tweaks, items.map((i) => i.value));
        expect(encrypted).toEqual(items.map((i) => ff1.encrypt(radix, i.tweak, i.value)));
        expect(ff1.decryptAll(radix, tweaks, encrypted)).toEqual(items.map((i) => i.value));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps to the minimum domain radix^length >= 1,000,000', () => {
    const ff1 = new Ff1(Buffer.alloc(16));
    const none = Buffer.alloc(0);
    for (const [radix, shortest] of [[10, 6], [36, 4], [2, 20], [16, 5], [3, 13]] as const) {
      expect(() => ff1.encrypt(radix, none, '1'.repeat(shortest - 1))).toThrow(`FF1 value 0 is too short: radix ${radix} needs radix^length >= 1000000`);
      expect(ff1.decrypt(radix, none, ff1.encrypt(radix, none, '1'.repeat(shortest)))).toBe('1'.repeat(shortest));
    }
  });

  it('refuses a bad radix, numeral, length, tweak or key, and never quotes the value', () => {
    const ff1 = new Ff1(Buffer.alloc(32));
    const none = Buffer.alloc(0);
    expect(() => ff1.encrypt(1, none, '0'.repeat(40))).toThrow('FF1 radix must be an integer from 2 to 36');
    expect(() => ff1.encrypt(37, none, '0'.repeat(40))).toThrow('FF1 radix must be an integer from 2 to 36');
    expect(() => ff1.encrypt(10, none, '12345a')).toThrow('FF1 value 0 has a character that is not a radix-10 numeral');
    expect(() => ff1.encrypt(36, none, 'ABCDEF')).toThrow('FF1 value 0 has a character that is not a radix-36 numeral');
    expect(() => ff1.encryptAll(10, [none, none], ['123456', '1234567é'])).toThrow('FF1 value 1 has a character');
    expect(() => ff1.encrypt(10, none, '1'.repeat(MAX_LENGTH + 1))).toThrow(`FF1 value 0 is longer than ${MAX_LENGTH} numerals`);
    expect(ff1.encrypt(10, none, '1'.repeat(MAX_LENGTH))).toHaveLength(MAX_LENGTH);
    expect(() => ff1.encrypt(10, Buffer.alloc(MAX_TWEAK + 1), '123456')).toThrow(`FF1 tweak 0 is longer than ${MAX_TWEAK} bytes`);
    expect(() => ff1.encryptAll(10, [none], ['123456', '123456'])).toThrow('FF1 needs one tweak per value');
    expect(() => new Ff1(Buffer.alloc(20))).toThrow('FF1 needs an AES key of 16, 24 or 32 bytes');
  });

  it('gives different ciphertexts under different tweaks and keys', () => {
    const value = '4111111111111111';
    const a = new Ff1(Buffer.alloc(32, 1));
    const b = new Ff1(Buffer.alloc(32, 2));
    const tweaks = ['', '00', '01', '0000'].map((t) => Buffer.from(t, 'hex'));
    const outs = new Set([...tweaks.map((t) => a.encrypt(10, t, value)), b.encrypt(10, tweaks[0]!, value)]);
    expect(outs.size).toBe(5);
  });
});
