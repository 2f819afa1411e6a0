// JSON Merge Patch (RFC 7396): the json-merge-patch package is the oracle on documents without the keys it refuses;
// with `constructor` and `prototype` (which it dropped, with every key after them) the result is what the RFC says.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import mergePatch from 'json-merge-patch';
import { applyMergePatch, mergedCopy } from '../../../../api/vault/merge-patch.js';

const key = fc.oneof(fc.constantFrom('a', 'b', 'c', 'name', 'address'), fc.string({ maxLength: 4 })).filter((k) => k !== '__proto__' && k !== 'constructor' && k !== 'prototype');
const { doc } = fc.letrec<{ doc: unknown }>((tie) => ({
  doc: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 3 }), fc.array(tie('doc'), { maxLength: 3 }), fc.dictionary(key, tie('doc'), { maxKeys: 4 })),
}));
const object = fc.dictionary(key, doc, { maxKeys: 5 });

/** RFC 7396's MergePatch, as its section 2 writes it, on plain data (every key an own property). */
function rfc(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out = new Map<string, unknown>(typeof target === 'object' && target !== null && !Array.isArray(target) ? Object.entries(target) : []);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) out.delete(k);
    else out.set(k, rfc(out.get(k), v));
  }
  return Object.fromEntries(out);
}

describe('applyMergePatch', () => {
  it('answers what json-merge-patch answers on documents without the keys it refuses', () => {
    fc.assert(fc.property(object, doc, (target, patch) => {
      expect(applyMergePatch(structuredClone(target), patch)).toEqual(mergePatch.apply(structuredClone(target), patch));
    }), { numRuns: 2_000 });
  });

  it('merges `constructor` and `prototype` as ordinary keys, with the keys after them, and pollutes no prototype', () => {
    const special = fc.constantFrom('constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf');
    const anyKey = fc.oneof(key, special);
    const { d } = fc.letrec<{ d: unknown }>((tie) => ({
      d: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.integer(), fc.string({ maxLength: 3 }), fc.dictionary(anyKey, tie('d'), { maxKeys: 4 })),
    }));
    fc.assert(fc.property(fc.dictionary(anyKey, d, { maxKeys: 5 }), d, (target, patch) => {
      const before = JSON.stringify(target);
      const merged = mergedCopy(target, patch);
      expect(JSON.stringify(target)).toBe(before);
      expect(JSON.parse(JSON.stringify(merged))).toEqual(JSON.parse(JSON.stringify(rfc(target, patch))));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(typeof Object.prototype.toString).toBe('function');
    }), { numRuns: 2_000 });
    expect(mergedCopy({ login: 'c', constructor: { x: 1 } }, { constructor: { y: 1 }, after: 2 })).toEqual({ login: 'c', constructor: { x: 1, y: 1 }, after: 2 });
  });
});
