// The tokenizer's block of random bytes (tokenizer/random.ts): whatever the sequence of draws, and wherever they
// fall against the block's edge, no byte is handed out twice and none comes from the zeroed, spent part of the
// block. Two draws sharing 8 bytes at the same place, or an all-zero draw, would show either.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fillRandom, randomBuffer } from '../../../tokenizer/random.js';

const draws = fc.array(fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 65, max: 300 }), fc.constantFrom(12, 16, 32)), { minLength: 1, maxLength: 400 });

describe('random bytes drawn a block at a time', () => {
  it('never hands out the same bytes twice, nor spent (zeroed) ones', () => {
    fc.assert(
      fc.property(draws, fc.nat(8), (lengths, offset) => {
        const seen = new Set<string>();
        let zeros = 0;
        let total = 0;
        for (const length of lengths) {
          // Drawn into the middle of a larger buffer: the bytes around it stay as they were.
          const out = Buffer.alloc(offset + length + 8, 0xa5);
          fillRandom(out, offset, length);
          expect(out.subarray(0, offset).every((b) => b === 0xa5)).toBe(true);
          expect(out.subarray(offset + length).every((b) => b === 0xa5)).toBe(true);
          const drawn = out.subarray(offset, offset + length);
          for (const b of drawn) if (b === 0) zeros++;
          total += length;
          if (length >= 8) {
            expect(drawn.every((b) => b === 0), 'an all-zero draw').toBe(false);
            for (let i = 0; i + 8 <= length; i += 8) {
              const window = drawn.subarray(i, i + 8).toString('hex');
              expect(seen.has(window), 'eight bytes handed out twice').toBe(false);
              seen.add(window);
            }
          }
        }
        // One byte in 256 is zero by chance; spent bytes handed out again would push the share far above it.
        if (total >= 4096) expect(zeros / total).toBeLessThan(0.02);
      }),
      { numRuns: 200 },
    );
  });

  it('gives keys of their own: a new buffer each time, not a view of the block', () => {
    const a = randomBuffer(32);
    const b = randomBuffer(32);
    expect(a.buffer).not.toBe(b.buffer);
    expect(a.byteOffset).toBe(0);
    a.fill(0);
    expect(b.every((x) => x === 0)).toBe(false);
  });

  it('refuses a draw that does not fit', () => {
    const out = Buffer.alloc(16);
    for (const [offset, length] of [[10, 7], [-1, 4], [0, 17], [1.5, 2], [0, -1]] as const) {
      expect(() => fillRandom(out, offset, length)).toThrow(RangeError);
    }
  });
});
