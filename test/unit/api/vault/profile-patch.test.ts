// Patch semantics of profiles: RFC 7396 merge for UserUpdate, RFC 6902 for UserPatch.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import mergePatch from 'json-merge-patch';
import { applyProfilePatch } from '../../../../api/vault/profile-patch.js';
import { BadRequestError } from '../../../../api/errors.js';

describe('merge patch (UserUpdate)', () => {
  it('changes only the sent fields and deletes nulls, recursively', () => {
    const profile = { a: 1, b: { c: 2, d: 3 }, e: [1, 2] };
    expect(mergePatch.apply(structuredClone(profile), { b: { c: null, x: 9 }, e: [3], f: 'new', a: null })).toEqual({
      b: { d: 3, x: 9 },
      e: [3],
      f: 'new',
    });
  });

  it('an empty patch leaves any profile unchanged', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (p) => {
      const clean = JSON.parse(JSON.stringify(p));
      expect(mergePatch.apply(structuredClone(clean), {})).toEqual(clean);
    }));
  });
});

describe('JSON patch (UserPatch)', () => {
  it('applies operations in order without touching the input', () => {
    const profile = { name: 'Ada', tags: ['a'] };
    const next = applyProfilePatch(profile, [
      { op: 'add', path: '/tags/-', value: 'b' },
      { op: 'copy', from: '/name', path: '/alias' },
      { op: 'test', path: '/name', value: 'Ada' },
    ]);
    expect(next).toEqual({ name: 'Ada', tags: ['a', 'b'], alias: 'Ada' });
    expect(profile).toEqual({ name: 'Ada', tags: ['a'] });
  });

  it('turns failing operations into 400s', () => {
    expect(() => applyProfilePatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(BadRequestError);
    expect(() => applyProfilePatch({ a: 1 }, [{ op: 'remove', path: '/b/c' }])).toThrow(/patch\[0\]/);
    expect(() => applyProfilePatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }])).toThrow(/JSON object/);
  });

  it('refuses to touch the prototype', () => {
    expect(() => applyProfilePatch({}, [{ op: 'add', path: '/__proto__/polluted', value: true }])).toThrow(BadRequestError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
