// The back-off of keys past their refusal budget: 1 s, then doubling at each new strike up to the ceiling, the
// longest of several keys answered, and forgotten once the key is within budget again. A clock of our own.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Backoff } from '../../../../api/vault/limits.js';

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
