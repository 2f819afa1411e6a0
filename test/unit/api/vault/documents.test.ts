// The depth bound on every request's values (tooDeep), against a recursive oracle written the plain way: the same
// verdict and the same path for any JSON value, however it nests, and no recursion on a value nested 100,000 deep.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tooDeep } from '../../../../api/vault/documents.js';

/**
 * The first value (in the order the bound visits them: an object's last key first) nested at `maxDepth` or deeper
 * that is itself an object or an array, with its dotted path; null when there is none.
 */
function oracle(value: unknown, maxDepth: number, path = '', depth = 0): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= maxDepth) return path || 'body';
  const entries = Object.entries(value);
  for (let i = entries.length - 1; i >= 0; i--) {
    const [key, child] = entries[i]!;
    const found = oracle(child, maxDepth, path ? `${path}.${key}` : key, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

describe('tooDeep', () => {
  it('names the same value as a plain recursive walk, for any JSON and any bound', () => {
    // Keys include the empty string, dots and numbers: the path is spelled as the oracle spells it.
    const key = fc.oneof(fc.constantFrom('', 'a', 'b.c', '0', '__proto__x'), fc.string({ maxLength: 4 }));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.constant(null)), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    })).value;
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 6 }), (value, max) => {
        expect(tooDeep(value, max)).toBe(oracle(value, max));
      }),
      { numRuns: 2000 },
    );
  });

  it('judges a value nested 100,000 deep without running out of stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
    const path = tooDeep({ profile: deep }, 64);
    expect(path).not.toBeNull();
    expect(path!.split('.')).toHaveLength(64);
    expect(path!.startsWith('profile.')).toBe(true);
  });

  it('passes flat documents and anything within the bound', () => {
    const profile = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`f${i}`, `v${i}`]));
    expect(tooDeep({ records: Array.from({ length: 1000 }, () => ({ profile })) })).toBeNull();
    expect(tooDeep('text')).toBeNull();
    expect(tooDeep(null)).toBeNull();
    expect(tooDeep({}, 0)).toBe('body');
  });
});
