// The tokenizer's cache of unwrapped data keys: a key leaves it only zeroed, whether evicted, replaced or cleared
// when the service closes; a key still held is intact. Checked over generated sequences of operations.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataKeyCache } from '../../../tokenizer/data-key-cache.js';

const isZero = (b: Buffer) => b.every((x) => x === 0);

describe('DataKeyCache', () => {
  it('zeroes every key it lets go and keeps every key it holds (fast-check)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), id: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant('get' as const), id: fc.integer({ min: 0, max: 12 }) }),
      fc.constant({ kind: 'clear' as const }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const cache = new DataKeyCache({ max: 4 });
        const given: { id: string; key: Buffer; copy: Buffer }[] = [];
        for (const o of ops) {
          if (o.kind === 'set') {
            const key = randomBytes(32);
            key[0] = 1; // never all zeros by chance
            given.push({ id: String(o.id), key, copy: Buffer.from(key) });
            cache.set(String(o.id), key);
          } else if (o.kind === 'get') cache.get(String(o.id));
          else cache.clear();
        }
        for (const g of given) {
          const held = cache.get(g.id) === g.key;
          if (held) expect(g.key.equals(g.copy)).toBe(true);
          else expect(isZero(g.key)).toBe(true);
        }
        cache.clear();
        expect(given.every((g) => isZero(g.key))).toBe(true);
        expect(cache.size).toBe(0);
      }),
    );
  });
});
