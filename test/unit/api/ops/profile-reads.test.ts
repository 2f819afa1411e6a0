// What a patch may read and point into for a caller whose UserGet hides some fields: a pointer's array indexes stand
// for the array, and nothing a patch answers (applied, or its error) may tell apart two people that UserGet shows alike.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fieldOfPointer, patchOpBlind } from '../../../../api/ops/profile-reads.js';
import { evaluate, maskProfile, type FieldGrant } from '../../../../api/vault/policy.js';
import { applyProfilePatch, type PatchOperation } from '../../../../api/vault/profile-patch.js';
import { VaultError } from '../../../../api/errors.js';
import { policyArb, profileArb, statementsOf } from '../../../fixtures/mask-reference.js';

describe('fieldOfPointer', () => {
  it('drops indexes and `-`, unescapes ~0 and ~1, and names the whole profile for ""', () => {
    expect(fieldOfPointer('')).toBe('');
    expect(fieldOfPointer('/addresses/0/city')).toBe('addresses.city');
    expect(fieldOfPointer('/tags/-')).toBe('tags');
    expect(fieldOfPointer('/a~1b/c~0d')).toBe('a/b.c~d');
  });
});

describe('patchOpBlind', () => {
  it('refuses every pointer into, through or around a hidden field; an add may name one hidden whole', () => {
    const grant: FieldGrant = new Set(['*', '!secret', '!hid', '!arr', '!address.city']);
    const blind = (o: { op: string; path: string; from?: string }) => patchOpBlind(grant, o);
    // The outside tester's probes: the shape of hid, the length of arr, the type of secret.
    expect(blind({ op: 'replace', path: '/hid/n' })).toBe(false);
    expect(blind({ op: 'replace', path: '/hid/q' })).toBe(false);
    expect(blind({ op: 'replace', path: '/arr/2' })).toBe(false);
    expect(blind({ op: 'add', path: '/arr/-' })).toBe(false);
    expect(blind({ op: 'add', path: '/secret/x' })).toBe(false);
    // Whether a hidden field exists, and the fields around a hidden one.
    expect(blind({ op: 'replace', path: '/secret' })).toBe(false);
    expect(blind({ op: 'remove', path: '/hid' })).toBe(false);
    expect(blind({ op: 'replace', path: '/address' })).toBe(false);
    expect(blind({ op: 'replace', path: '' })).toBe(false);
    expect(blind({ op: 'test', path: '/secret' })).toBe(false);
    expect(blind({ op: 'copy', from: '/secret', path: '/leak' })).toBe(false);
    expect(blind({ op: 'copy', from: '/name', path: '/secret/x' })).toBe(false);
    // What stays the patch's own: visible fields, and an add that overwrites a hidden field whole.
    expect(blind({ op: 'replace', path: '/name' })).toBe(true);
    expect(blind({ op: 'add', path: '/secret' })).toBe(true);
    expect(blind({ op: 'add', path: '/address/city' })).toBe(true);
    expect(blind({ op: 'replace', path: '/address/zip' })).toBe(true);
    expect(blind({ op: 'move', from: '/name', path: '/hid' })).toBe(true);
    expect(blind({ op: 'test', path: '/login' })).toBe(true);
  });

  it('lets nothing it allows tell apart two profiles the caller’s UserGet shows alike (non-interference)', () => {
    const KEYS = ['a', 'b', 'c'];
    const pointerArb = fc.array(fc.constantFrom(...KEYS, '0', '1', '-'), { maxLength: 3 }).map((t) => (t.length ? `/${t.join('/')}` : ''));
    const opArb = fc.record({
      op: fc.constantFrom('add', 'replace', 'remove', 'test', 'copy', 'move'),
      path: pointerArb,
      from: pointerArb,
      value: fc.constantFrom('w', 7, { a: 'w' }, [1]),
    });
    // A second profile: the first with one field (at any depth through records) set or removed.
    const changeArb = fc.record({ path: fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 3 }), value: fc.option(profileArb, { nil: undefined }) });
    const changed = (profile: Record<string, unknown>, change: { path: string[]; value: unknown }) => {
      const copy = structuredClone(profile);
      let at: Record<string, unknown> = copy;
      for (const key of change.path.slice(0, -1)) {
        const next = at[key];
        if (next === null || typeof next !== 'object' || Array.isArray(next)) at[key] = {};
        at = at[key] as Record<string, unknown>;
      }
      if (change.value === undefined) delete at[change.path.at(-1)!];
      else at[change.path.at(-1)!] = change.value;
      return copy;
    };
    const outcome = (profile: Record<string, unknown>, op: PatchOperation, grant: FieldGrant) => {
      try {
        return { shown: maskProfile(applyProfilePatch(profile, [op], 1_000_000), grant) };
      } catch (err) {
        if (err instanceof VaultError) return { error: err.message };
        throw err;
      }
    };
    let twins = 0;
    fc.assert(
      fc.property(policyArb, profileArb, changeArb, opArb, (policy, profile, change, raw) => {
        const decision = evaluate(statementsOf(policy), { action: 'UserGet', kinds: ['profile'], role: 'r', requestMetadata: {} });
        if (!decision.allow) return;
        const grant = decision.fields;
        const other = changed(profile, change);
        // Twins: different people the caller's UserGet shows alike.
        if (JSON.stringify(maskProfile(profile, grant)) !== JSON.stringify(maskProfile(other, grant))) return;
        if (JSON.stringify(profile) === JSON.stringify(other)) return;
        const op = { op: raw.op, path: raw.path, ...(raw.op === 'copy' || raw.op === 'move' ? { from: raw.from } : {}), ...(['add', 'replace', 'test'].includes(raw.op) ? { value: raw.value } : {}) } as PatchOperation;
        if (!patchOpBlind(grant, op)) return;
        twins++;
        expect(outcome(other, op, grant), JSON.stringify({ op, grant: [...(grant === '*' ? ['*'] : grant)], profile, other })).toEqual(outcome(profile, op, grant));
      }),
      { numRuns: 20_000 },
    );
    // The property met enough allowed operations on twins to mean something.
    expect(twins).toBeGreaterThan(300);
  });
});
