// The back-off of keys past their refusal budget: 1 s, then doubling at each new strike up to the ceiling, the
// longest of several keys answered, and forgotten once the key is within budget again. A clock of our own.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Backoff, addressKey } from '../../../../api/vault/limits.js';

describe('Backoff', () => {
  it('backs a key off for 1 s, then twice as long at each strike, never past the ceiling', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 1, max: 40 }), (ceiling, strikes) => {
        let now = 1_000_000;
        const backoff = new Backoff(ceiling, 60, () => now);
        for (let n = 1; n <= strikes; n++) {
          const expected = Math.min(ceiling, 2 ** (n - 1));
          expect(backoff.strike(['address:a'])).toBe(expected);
          expect(backoff.waiting(['address:a'])).toBe(expected);
          now += expected * 1000 - 1;
          expect(backoff.waiting(['address:a'])).toBe(1);
          now += 1;
          expect(backoff.waiting(['address:a'])).toBe(0);
        }
      }),
    );
  });

  it('answers the longest wait of several keys, ignores others, and forgets forgiven keys', () => {
    const now = 5_000;
    const backoff = new Backoff(300, 60, () => now);
    backoff.strike(['prefix:abc']);
    backoff.strike(['prefix:abc']);
    expect(backoff.strike(['address:a', 'prefix:abc'])).toBe(4);
    expect(backoff.waiting(['address:a', 'prefix:abc', 'tenant:t'])).toBe(4);
    expect(backoff.waiting(['tenant:t'])).toBe(0);
    backoff.forgive(['prefix:abc']);
    expect(backoff.waiting(['prefix:abc'])).toBe(0);
    expect(backoff.strike(['prefix:abc'])).toBe(1);
  });
});

// Rate-limit keys of addresses, against the groups they were written from: an IPv6 address is counted by its /64
// however it is written (full, padded, upper case, compressed as URLs write it, a dotted IPv4 tail), two addresses
// share a key exactly when their first four groups are equal, and an IPv4 address is its own key.
describe('addressKey', () => {
  const group = fc.oneof(fc.constant(0), fc.nat(0xffff));
  const groups = fc.array(group, { minLength: 8, maxLength: 8 });
  const writings = (g: number[]) => {
    const full = g.map((n) => n.toString(16)).join(':');
    const tail = `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.${g[7]! & 0xff}`;
    return [
      full,
      g.map((n) => n.toString(16).padStart(4, '0')).join(':').toUpperCase(),
      new URL(`http://[${full}]/`).hostname.slice(1, -1),
      `${g.slice(0, 6).map((n) => n.toString(16)).join(':')}:${tail}`,
    ];
  };

  it('counts an IPv6 address by its /64, however it is written', () => {
    fc.assert(
      fc.property(groups, groups, (a, b) => {
        const keys = writings(a).map(addressKey);
        expect(new Set(keys).size).toBe(1);
        const sameNet = a.slice(0, 4).every((n, i) => n === b[i]);
        expect(addressKey(writings(b)[2]!) === keys[0]).toBe(sameNet);
      }),
    );
  });

  it('keeps an IPv4 address, and anything that is no IPv6 address, as it is', () => {
    fc.assert(
      fc.property(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)), (o) => {
        expect(addressKey(o.join('.'))).toBe(o.join('.'));
      }),
    );
    expect(addressKey('not an address')).toBe('not an address');
  });
});
