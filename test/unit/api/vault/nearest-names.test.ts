// "Did you mean": the names nearest a mistyped one, checked against a plain edit-distance oracle.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { didYouMean, editDistance, nearestNames } from '../../../../api/vault/nearest-names.js';

const OPS = ['UserCreate', 'UserGet', 'UserPatch', 'UserUpdate', 'AuditListUserEvents', 'AuditGetEvent', 'TokenCreate'];

/** The textbook recursion (optimal string alignment), memoised: slow, obviously right. */
function oracle(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const memo = new Map<string, number>();
  const d = (i: number, j: number): number => {
    if (i === 0) return j;
    if (j === 0) return i;
    const key = `${i},${j}`;
    if (memo.has(key)) return memo.get(key)!;
    let best = Math.min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (x[i - 1] === y[j - 1] ? 0 : 1));
    if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) best = Math.min(best, d(i - 2, j - 2) + 1);
    memo.set(key, best);
    return best;
  };
  return d(x.length, y.length);
}

describe('nearest names', () => {
  it('names what a typo meant', () => {
    expect(didYouMean('UserGett', OPS)).toBe(' (did you mean UserGet?)');
    expect(didYouMean('userget', OPS)).toBe(' (did you mean UserGet?)');
    expect(didYouMean('UsreCreate', OPS)).toBe(' (did you mean UserCreate?)');
    expect(didYouMean('AuditList', OPS)).toBe(' (did you mean AuditListUserEvents?)');
    expect(didYouMean('Teleport', OPS)).toBe('');
    expect(didYouMean('UserGet', OPS)).toBe('');
    expect(nearestNames('x'.repeat(65), OPS)).toEqual([]);
  });

  it('measures edits as the textbook recursion does', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A'), maxLength: 8 });
    fc.assert(fc.property(word, word, (a, b) => {
      expect(editDistance(a, b)).toBe(oracle(a, b));
      expect(editDistance(a, b)).toBe(editDistance(b, a));
    }));
  });

  it('offers only known names, never the one asked for, at most three', () => {
    fc.assert(fc.property(fc.string({ maxLength: 20 }), (name) => {
      const near = nearestNames(name, OPS);
      expect(near.length).toBeLessThanOrEqual(3);
      for (const n of near) expect(OPS).toContain(n);
      expect(near).not.toContain(name);
    }));
  });
});
