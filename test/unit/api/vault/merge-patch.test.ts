// JSON Merge Patch (RFC 7396): the json-merge-patch package is the oracle on documents without the keys it refuses;
// with `constructor` and `prototype` (which it dropped, with every key after them) the result is what the RFC says.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import mergePatch from 'json-merge-patch';
import { applyMergePatch, mergePatchBack, mergePatchBetween, mergedCopy, mergedShared } from '../../../../api/vault/merge-patch.js';
import { AFTER_AS_CHANGE, BEFORE_AS_CHANGE, BEFORE_STATE, draftEvent, keptDigest, openedDetails } from '../../../../api/vault/audit/note.js';

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

/** Whether a JSON value holds a null outside any array (what a merge patch cannot set). */
const nullOutsideArrays = (v: unknown): boolean => v === null || (typeof v === 'object' && !Array.isArray(v) && Object.values(v as object).some(nullOutsideArrays));

describe('mergePatchBetween', () => {
  it('gives the patch that makes `to` from `from` whenever one exists, and leaves `from` as it was (generated)', () => {
    // Pairs that share most of their members, as a document before and after a change does, and unrelated ones.
    const pair = fc.oneof(
      fc.tuple(object, object),
      fc.tuple(object, object, fc.array(key, { maxLength: 3 })).map(([a, b, drop]) => {
        const to = { ...a, ...b };
        for (const k of drop) delete to[k];
        return [a, to] as [Record<string, unknown>, Record<string, unknown>];
      }),
    );
    fc.assert(fc.property(pair, ([from, to]) => {
      const before = JSON.stringify(from);
      const patch = mergePatchBetween(from, to);
      expect(JSON.stringify(from)).toBe(before);
      // The oracle: RFC 7396's own MergePatch of the patch gives `to` back (as JSON: key order aside).
      if (patch !== undefined) expect(rfc(from, patch)).toEqual(to);
      // None only when `to` holds a null a patch cannot set.
      else expect(nullOutsideArrays(to)).toBe(true);
    }), { numRuns: 3_000 });
  });

  it('carries only what changed', () => {
    const from = { name: 'Ada', address: { city: 'London', street: 'Baker' }, tags: [1, 2], old: 1 };
    const to = { name: 'Ada', address: { city: 'Paris', street: 'Baker' }, tags: [1, 2, 3] };
    expect(mergePatchBetween(from, to)).toEqual({ old: null, address: { city: 'Paris' }, tags: [1, 2, 3] });
    expect(mergePatchBetween(from, { ...from })).toEqual({});
    expect(mergePatchBetween(from, { ...from, gone: null })).toBeUndefined();
    expect(mergePatchBetween([1], { a: 1 })).toBeUndefined();
  });

  it('merges sharing what the patch leaves alone: the same document as mergedCopy, and the original unchanged (generated)', () => {
    fc.assert(fc.property(object, doc, (target, patch) => {
      const kept = structuredClone(target);
      const merged = mergedShared(target, patch);
      expect(merged).toEqual(mergedCopy(kept, patch));
      expect(target).toEqual(kept);
      expect(Object.getPrototypeOf(merged === null || typeof merged !== 'object' ? {} : merged)).toBe(Array.isArray(merged) ? Array.prototype : Object.prototype);
    }), { numRuns: 3_000 });
    // An own `__proto__` member (JSON.parse makes one) is copied as a member, never as the copy's prototype.
    const shared = mergedShared(JSON.parse('{"__proto__": {"x": 1}, "constructor": {"a": 1}, "keep": {"deep": [1]}}'), { constructor: { b: 2 } }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(shared)).toBe(Object.prototype);
    expect(Object.hasOwn(shared, '__proto__')).toBe(true);
    expect(JSON.stringify(shared)).toBe('{"__proto__":{"x":1},"constructor":{"a":1,"b":2},"keep":{"deep":[1]}}');
  });

  it('makes the way back from the patch alone, equal to the patch between the documents the other way (generated)', () => {
    fc.assert(fc.property(object, object, (from, to) => {
      const patch = mergePatchBetween(from, to);
      fc.pre(patch !== undefined);
      expect(mergePatchBack(from, patch!)).toEqual(mergePatchBetween(to, from));
    }), { numRuns: 3_000 });
    // Documents that share most of their members, as a profile and its update do.
    fc.assert(fc.property(object, object, object, (shared, from, to) => {
      const [a, b] = [{ ...shared, ...from }, { ...shared, ...to }];
      const patch = mergePatchBetween(a, b);
      fc.pre(patch !== undefined);
      expect(mergePatchBack(a, patch!)).toEqual(mergePatchBetween(b, a));
    }), { numRuns: 3_000 });
  });

  it('gives none for a document JSON would change (undefined, a Date, NaN): it is sealed whole (the review of 29 November)', () => {
    // A patch drafted from such a value did not make again what was sealed: {a: undefined} was patched as {} and read
    // back as {a: 1}, a new Date as {} (the old one kept), Infinity as null (the key deleted).
    for (const to of [{ a: undefined }, { a: { b: undefined } }, { t: new Date(1000) }, { a: Infinity }, { a: [Number.NaN] }, { a: 1n }]) {
      expect(mergePatchBetween({ a: 1, t: 'x' }, to)).toBeUndefined();
    }
    expect(mergePatchBetween({ t: new Date(0) }, { t: 'x' })).toBeUndefined();
    expect(mergePatchBetween(Object.assign(Object.create(null) as object, { a: 1 }), { a: 2 })).toEqual({ a: 2 });
  });
});

describe("an audit event's after", () => {
  const actor = { principal: { credentialId: 'c', kind: 'root', tenantId: 1, roleId: null, userToken: null, expiresAt: null }, rolename: null, request: { address: '192.0.2.1', requestId: null }, housekeepingAllowed: false } as never;

  it('is sealed as its change from before and read back whole (generated)', () => {
    fc.assert(fc.property(object, object, (before, after) => {
      const draft = draftEvent('UserUpdate', actor, { record: 'r', before, after }, { status: 'ok' }, { now: 1 });
      const sealed = JSON.parse(JSON.stringify(draft.details)) as Record<string, unknown>;
      const shown = openedDetails(sealed);
      expect(shown.before).toEqual(before);
      expect(shown.after).toEqual(JSON.parse(JSON.stringify(after)));
      expect(Object.hasOwn(shown, AFTER_AS_CHANGE)).toBe(false);
      if (!nullOutsideArrays(after)) expect(Object.hasOwn(sealed, 'after')).toBe(false);
    }), { numRuns: 1_000 });
  });

  // The oracle: the document the kept version holds is `before` itself as JSON carries it; with it the event is
  // shown as if `before` had been sealed in it; without it, the two patches still make each side from the other.
  it('names a kept before instead of sealing it, and is shown whole while the version is kept (generated)', () => {
    fc.assert(fc.property(object, object, fc.integer({ min: 1, max: 1_000 }), (before, after, version) => {
      const draft = draftEvent('UserUpdate', actor, { record: 'r', before, after, beforeKept: version }, { status: 'ok' }, { now: 1 });
      const sealed = JSON.parse(JSON.stringify(draft.details)) as Record<string, unknown>;
      const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
      if (mergePatchBetween(before, after) !== undefined && mergePatchBetween(after, before) !== undefined) {
        expect(Object.hasOwn(sealed, 'before')).toBe(false);
        expect(sealed.beforeversion).toBe(version);
        expect(sealed.beforesha256).toBe(keptDigest(before));
        // What changed, each way, without the version.
        expect(mergedCopy(json(before), sealed[AFTER_AS_CHANGE])).toEqual(json(after));
        expect(mergedCopy(json(after), sealed[BEFORE_AS_CHANGE])).toEqual(json(before));
        const pruned = openedDetails(sealed, 'pruned');
        expect(pruned).toMatchObject({ [BEFORE_STATE]: 'pruned', beforeversion: version });
        expect(Object.hasOwn(pruned, 'before') || Object.hasOwn(pruned, 'after')).toBe(false);
      } else {
        expect(sealed.before).toEqual(before);
      }
      const shown = openedDetails(sealed, { document: json(before) });
      expect(shown.before).toEqual(json(before));
      expect(shown.after).toEqual(json(after));
      expect(Object.hasOwn(shown, AFTER_AS_CHANGE) || Object.hasOwn(shown, BEFORE_AS_CHANGE) || Object.hasOwn(shown, BEFORE_STATE)).toBe(false);
    }), { numRuns: 1_000 });
  });

  it('shows a kept before that is not the document it named as altered, never as the before', () => {
    fc.assert(fc.property(object, object, object, (before, after, other) => {
      fc.pre(keptDigest(other) !== keptDigest(before));
      const draft = draftEvent('UserUpdate', actor, { record: 'r', before, after, beforeKept: 3 }, { status: 'ok' }, { now: 1 });
      const sealed = JSON.parse(JSON.stringify(draft.details)) as Record<string, unknown>;
      fc.pre(Object.hasOwn(sealed, 'beforeversion'));
      const shown = openedDetails(sealed, { document: other });
      expect(shown[BEFORE_STATE]).toBe('altered');
      expect(Object.hasOwn(shown, 'before')).toBe(false);
    }), { numRuns: 300 });
  });
});
