// Patch semantics of profiles: RFC 7396 merge for UserUpdate, RFC 6902 for UserPatch. The JSON Patch is checked
// against two oracles of its own: fast-json-patch for what a patch means, and a size and work bound for what it may
// cost (the amplification an attacker builds from copies).
import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import mergePatch from 'json-merge-patch';
import jsonPatch from 'fast-json-patch';
import { applyProfilePatch, MAX_PATCH_OPERATIONS, type PatchOperation } from '../../../../api/vault/profile-patch.js';
import { MAX_DEPTH, tooDeep } from '../../../../api/vault/documents.js';
import { BadRequestError } from '../../../../api/errors.js';

const MiB = 1024 * 1024;
const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

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
      { op: 'move', from: '/tags/0', path: '/first' },
    ] as PatchOperation[], MiB);
    expect(next).toEqual({ name: 'Ada', tags: ['b'], alias: 'Ada', first: 'a' });
    expect(profile).toEqual({ name: 'Ada', tags: ['a'] });
  });

  it('turns failing operations into 400s naming the operation', () => {
    expect(() => applyProfilePatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }], MiB)).toThrow(BadRequestError);
    expect(() => applyProfilePatch({ a: 1 }, [{ op: 'remove', path: '/b/c' }], MiB)).toThrow(/patch\[0\]/);
    expect(() => applyProfilePatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }], MiB)).toThrow(/JSON object/);
    expect(() => applyProfilePatch({ a: 1 }, [{ op: 'add', path: '/b' }], MiB)).toThrow(/patch\[0\]: add needs a value/);
    expect(() => applyProfilePatch({ a: 1 }, [{ op: 'copy', path: '/b' }], MiB)).toThrow(/patch\[0\]: copy needs from/);
    expect(() => applyProfilePatch({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }], MiB)).toThrow(/into itself/);
    expect(() => applyProfilePatch({ a: 1 }, [{ op: 'add', path: 'a', value: 1 }], MiB)).toThrow(/not a JSON Pointer/);
    const many = Array.from({ length: MAX_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/a', value: 1 }) as PatchOperation);
    expect(() => applyProfilePatch({ a: 1 }, many, MiB)).toThrow(/at most 100 operations/);
  });

  it('refuses to touch the prototype', () => {
    expect(() => applyProfilePatch({}, [{ op: 'add', path: '/__proto__/polluted', value: true }], MiB)).toThrow(BadRequestError);
    expect(() => applyProfilePatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }], MiB)).toThrow(BadRequestError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('JSON patch amplification', () => {
  afterEach(() => vi.restoreAllMocks());

  /** The review's reproduction: `copy /a → /b`, then `copy /b → /a/x<i>`, doubling `/a` every two operations. */
  function doubling(pairs: number): PatchOperation[] {
    return Array.from({ length: pairs }, (_, i) => [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'copy', from: '/b', path: `/a/x${i}` },
    ]).flat() as PatchOperation[];
  }

  it('refuses the two-copy doubling once the size total passes the cap, before the copy is made', () => {
    const profile = { a: { seed: 'x'.repeat(1000) } };
    expect(() => applyProfilePatch(profile, doubling(50), MiB)).toThrow(/patch\[\d+\]: the profile would grow past 1048576 bytes/);
  });

  it('refuses a copy of a branch into itself past the cap, and allows it within', () => {
    expect(applyProfilePatch({ a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/a/c' }], MiB)).toEqual({ a: { b: 1, c: { b: 1 } } });
    expect(() => applyProfilePatch({ a: { b: 'y'.repeat(700) } }, [{ op: 'copy', from: '/a', path: '/a/c' }], 1024)).toThrow(/grow past 1024/);
  });

  it('keeps nesting within the depth bound whatever copies and moves do', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < MAX_DEPTH - 2; i++) deep = { d: deep };
    const profile = { a: deep };
    expect(() => applyProfilePatch(profile, [{ op: 'copy', from: '/a', path: '/a/d/e' }], MiB)).toThrow(/nested deeper than 64/);
    expect(() => applyProfilePatch({ ...profile, b: {} }, [{ op: 'move', from: '/a', path: '/b/c' }], MiB)).toThrow(/nested deeper/);
  });

  // The attacker's search: any sequence of operations over a small profile. Whatever it does, the result is
  // within the cap and the depth bound, and the bytes the patch makes the process serialise stay within a bound
  // set by the cap and the patch's own size, not by the number of doublings.
  it('bounds the result and the work of any patch by the cap (fast-check, JSON.stringify as the meter)', () => {
    const cap = 16 * 1024;
    fc.assert(
      fc.property(smallProfile(), fc.array(operation(), { minLength: 1, maxLength: MAX_PATCH_OPERATIONS }), (profile, patch) => {
        let serialised = 0;
        const stringify = JSON.stringify;
        const spy = vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
          const out = stringify(...args);
          serialised += out?.length ?? 0;
          return out;
        });
        let result: Record<string, unknown> | undefined;
        try {
          result = applyProfilePatch(profile, patch, cap);
        } catch (err) {
          expect(err).toBeInstanceOf(BadRequestError);
        } finally {
          spy.mockRestore();
        }
        const patchBytes = bytesOf(patch);
        // The profile once, the values brought in (within the cap, plus the last refused one, itself within it),
        // and each add/replace value of the patch once.
        expect(serialised).toBeLessThanOrEqual(bytesOf(profile) + 2 * cap + patchBytes);
        if (result) {
          expect(bytesOf(result)).toBeLessThanOrEqual(cap);
          expect(tooDeep(result)).toBeNull();
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('JSON patch semantics against fast-json-patch', () => {
  // Within the cap, the vault's patch means what RFC 6902 says, as fast-json-patch implements it: same result when
  // it applies, a 400 when it does not. The one difference is on purpose: a move into its own descendant, which
  // RFC 6902 forbids and fast-json-patch does not check, is refused.
  it('agrees on any patch over small profiles', () => {
    let applied = 0;
    const cases = smallProfile().chain((profile) => fc.tuple(fc.constant(profile), fc.array(operationOn(profile), { minLength: 1, maxLength: 4 })));
    fc.assert(
      fc.property(cases, ([profile, patch]) => {
        const intoItself = patch.some((op) => op.op === 'move' && op.from !== undefined && op.path.startsWith(`${op.from}/`));
        let expected: unknown;
        try {
          expected = jsonPatch.applyPatch(structuredClone(profile), JSON.parse(JSON.stringify(patch)) as jsonPatch.Operation[], true, true, true).newDocument;
        } catch {
          expected = undefined;
        }
        const isObject = typeof expected === 'object' && expected !== null && !Array.isArray(expected);
        // fast-json-patch checks where a copy or move lands against the document before the move's removal, or
        // not at all (past an array's end it appends; into a number it writes nothing, losing the value); RFC 6902
        // (4.1, 4.4) removes first and refuses an index past the end, as this implementation does. So for a patch
        // with a copy or move the two must agree only where both apply it.
        const placed = patch.some((op) => op.op === 'copy' || op.op === 'move');
        let ours: Record<string, unknown> | undefined;
        try {
          ours = applyProfilePatch(profile, patch, MiB);
        } catch (err) {
          expect(err).toBeInstanceOf(BadRequestError);
        }
        if (placed && !intoItself) {
          if (isObject && ours) {
            expect(ours).toEqual(expected);
            applied++;
          }
        } else if (!isObject || intoItself) {
          expect(ours).toBeUndefined();
        } else {
          expect(ours).toEqual(expected);
          applied++;
        }
      }),
      { numRuns: 3000 },
    );
    // The comparison is worth something only if many generated patches do apply.
    expect(applied).toBeGreaterThan(300);
  });
});

/** Every pointer into `value`, with the value found there. */
function pointersOf(value: unknown, at = ''): [string, unknown][] {
  if (typeof value !== 'object' || value === null) return [];
  const members = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return members.flatMap(([k, v]) => {
    const path = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    return [[path, v] as [string, unknown], ...pointersOf(v, path)];
  });
}

/** Operations aimed mostly at what the profile holds: its pointers, new members beside them, appends, its values. */
function operationOn(profile: Record<string, unknown>): fc.Arbitrary<PatchOperation> {
  const found = pointersOf(profile);
  const existing = fc.constantFrom(...found.map(([p]) => p));
  const fresh = existing.chain((p) => fc.constantFrom(`${p}/-`, `${p}/n`, `${p.slice(0, p.lastIndexOf('/'))}/n`, '/n'));
  const path = fc.oneof(existing, fresh, pointer());
  const value = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant({ k: [1, 2] }), fc.constantFrom(...found.map(([, v]) => v)));
  return fc.oneof(
    fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path, value }),
    fc.record({ op: fc.constant('remove'), path }),
    fc.record({ op: fc.constantFrom('copy', 'move'), path, from: fc.oneof(existing, pointer()) }),
  ) as fc.Arbitrary<PatchOperation>;
}

const keys = ['a', 'b', 'c'];

/** A profile whose three top-level members always exist (a list, an object and anything), so most paths resolve. */
function smallProfile(): fc.Arbitrary<Record<string, unknown>> {
  const leaf = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('s', 'tt'), fc.constant(null));
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(fc.constantFrom(...keys), tie('node'), { maxKeys: 3 })),
  })).node;
  return fc.record({
    a: fc.array(value, { minLength: 1, maxLength: 3 }),
    b: fc.dictionary(fc.constantFrom(...keys), value, { minKeys: 1, maxKeys: 3 }),
    c: value,
  }) as fc.Arbitrary<Record<string, unknown>>;
}

function pointer(): fc.Arbitrary<string> {
  const token = fc.constantFrom('a', 'b', 'c', '0', '1', '-', 'x~1y');
  return fc.array(token, { minLength: 1, maxLength: 3 }).map((t) => t.map((s) => `/${s}`).join(''));
}

function operation(): fc.Arbitrary<PatchOperation> {
  const value = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant({ k: [1, 2] }), fc.constant([0]), fc.constant('v'.repeat(40)));
  return fc.oneof(
    fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path: pointer(), value }),
    fc.record({ op: fc.constant('remove'), path: pointer() }),
    fc.record({ op: fc.constantFrom('copy', 'move'), path: pointer(), from: pointer() }),
  ) as fc.Arbitrary<PatchOperation>;
}
