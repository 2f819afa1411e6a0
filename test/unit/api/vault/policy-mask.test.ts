// Masking through arrays and nesting, and PolicyExplain's `masked`, against a small reference implementation of
// the rule: a field path applies to every element of every array on its way; a Deny wins over any Allow.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { evaluate, maskProfile, parsePolicy, type PolicyStatement } from '../../../../api/vault/policy.js';
import { intersectGrants, maskedPaths, readsWhole } from '../../../../api/vault/policy-mask.js';
import { valuesAtPath } from '../../../../api/vault/dotted-path.js';
import { clearValues, pathArb, policyArb, profileArb, reference, statementsOf, uniqueLeaves } from '../../../fixtures/mask-reference.js';

describe('masking against the reference', () => {
  it('shows exactly what the reference shows, and PolicyExplain’s masked paths are the reference’s', () => {
    fc.assert(
      fc.property(policyArb, profileArb, (policy, profile) => {
        const statements = statementsOf(policy);
        expect('statements' in parsePolicy(statements)).toBe(true);
        const decision = evaluate(statements, { action: 'UserGet', kinds: ['profile'], role: 'r', requestMetadata: {} });
        const expected = reference(profile, policy.allow, policy.denies);
        if (expected.refused) {
          expect(decision.allow).toBe(false);
          return;
        }
        expect(decision.allow).toBe(true);
        if (!decision.allow) return;
        expect(maskProfile(profile, decision.fields)).toEqual(expected.shown);
        expect([...new Set(maskedPaths(decision.fields))].sort()).toEqual(expected.masked);
      }),
      { numRuns: 2000 },
    );
  });

  it('hides a denied field in each element of nested arrays', () => {
    const profile = { a: [{ b: 'x', c: 1 }, [{ b: 'y' }], 'z'] };
    expect(maskProfile(profile, new Set(['*', '!a.b']))).toEqual({ a: [{ b: '***', c: 1 }, [{ b: '***' }], 'z'] });
    expect(maskProfile(profile, new Set(['a.c']))).toEqual({ a: [{ b: '***', c: 1 }, [{ b: '***' }], '***'] });
  });

  it('keeps a `__proto__` key a plain field', () => {
    const profile = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": "x"}') as Record<string, unknown>;
    const shown = maskProfile(profile, new Set(['*', '!a']));
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(Object.hasOwn(shown, '__proto__')).toBe(true);
  });
});

describe('what a policy may say', () => {
  const deny = (Resource: string, Condition?: PolicyStatement['Condition']) => parsePolicy([{ Effect: 'Deny', Action: '*', Resource, ...(Condition ? { Condition } : {}) }]);

  it('refuses any wildcard or index inside a profile field path, and takes the plain ones', () => {
    const segment = fc.stringMatching(/^[a-z]{1,4}$/);
    const wild = fc.constantFrom('*', '?', '[0]', '[]', '{x}', ' ');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.nat(3), wild, fc.boolean(), (segments, at, w, appended) => {
        const i = at % segments.length;
        const bad = segments.map((s, j) => (j === i ? (appended ? s + w : w) : s)).join('.');
        // `users.profile.*` alone is the whole profile.
        fc.pre(bad !== '*');
        expect('reason' in deny(`users.profile.${bad}`)).toBe(true);
        expect('statements' in deny(`users.profile.${segments.join('.')}`)).toBe(true);
      }),
    );
    expect('statements' in deny('users.profile.*')).toBe(true);
    expect('statements' in deny('*')).toBe(true);
  });

  it('refuses an unknown or partial variable anywhere in a condition, and takes the known ones', () => {
    const known = ['${request_metadata:purpose}', '${user_group_id}', '${principal_group_id}', '${target_group_id}', '${user:address.city}', '${agreement:terms}'];
    for (const v of known) {
      expect('statements' in deny('*', { StringEquals: { [v]: 'x' } }), v).toBe(true);
      expect('statements' in deny('*', { StringEquals: { '${request_metadata:k}': [v] } }), v).toBe(true);
    }
    fc.assert(
      fc.property(fc.constantFrom(...known), fc.constantFrom('x', '.', '-', ''), fc.boolean(), (v, junk, inValue) => {
        // A changed name, or a variable inside other text, is not a known variable.
        const typo = junk === '' ? `pre${v}` : v.replace(/[:_]/, junk);
        fc.pre(typo !== v && !known.includes(typo));
        const condition = inValue ? { StringEquals: { '${request_metadata:k}': typo } } : { StringEquals: { [typo]: 'x' } };
        const parsed = deny('*', condition);
        expect('reason' in parsed && parsed.reason).toMatch(/Condition.*unknown variable/);
      }),
    );
  });
});

describe('conditions about the person through arrays', () => {
  const deny = [
    { Effect: 'Allow' as const, Action: '*', Resource: '*' },
    { Effect: 'Deny' as const, Action: '*', Resource: '*', Condition: { StringEquals: { '${user:addresses.country}': 'FI' } } },
  ];
  const judge = (profile: Record<string, unknown>) => evaluate(deny, { action: 'UserGet', kinds: ['profile'], role: 'r', requestMetadata: {}, subject: { profile } }).allow;

  it('apply a Deny when any element on the way matches', () => {
    expect(judge({ addresses: [{ country: 'SE' }, { country: 'FI' }] })).toBe(false);
    expect(judge({ addresses: [[{ country: 'FI' }]] })).toBe(false);
    expect(judge({ addresses: { country: 'FI' } })).toBe(false);
    expect(judge({ addresses: [{ country: 'SE' }] })).toBe(true);
    expect(judge({ addresses: [] })).toBe(true);
  });

  it('match the reference for generated profiles', () => {
    // Reference: the countries at `addresses.country`, every array on the way walked.
    const countries = (v: unknown, keys: string[]): unknown[] => {
      if (Array.isArray(v)) return v.flatMap((e) => countries(e, keys));
      if (keys.length === 0) return [v];
      if (v === null || typeof v !== 'object' || !Object.hasOwn(v, keys[0]!)) return [];
      return countries((v as Record<string, unknown>)[keys[0]!], keys.slice(1));
    };
    const country = fc.constantFrom('FI', 'SE', 'NO');
    const address = fc.oneof(fc.record({ country }), fc.array(fc.record({ country }), { maxLength: 3 }), fc.array(fc.array(fc.record({ country }), { maxLength: 2 }), { maxLength: 2 }), country);
    fc.assert(
      fc.property(fc.record({ addresses: address }), (profile) => {
        expect(judge(profile)).toBe(!countries(profile.addresses, ['country']).includes('FI'));
      }),
    );
  });
});

describe('array indexes in field paths (M2: a Deny of one would hide nothing)', () => {
  it('are refused, saying a path applies to every element; any other generated Deny path masks as the reference says', () => {
    const withIndexes = fc.array(fc.constantFrom('a', 'b', 'c', '0', '1', '10'), { minLength: 1, maxLength: 3 }).map((k) => k.join('.'));
    fc.assert(
      fc.property(fc.uniqueArray(withIndexes, { minLength: 1, maxLength: 3 }), profileArb, (denies, profile) => {
        const policy = { allow: '*' as const, denies };
        const parsed = parsePolicy(statementsOf(policy));
        if (denies.some((d) => d.split('.').some((s) => /^[0-9]+$/.test(s)))) {
          expect('reason' in parsed && parsed.reason).toMatch(/Resource: users\.profile\.\S+ is no profile field path: a numeric segment .* applies to every element/);
          return;
        }
        expect('statements' in parsed).toBe(true);
        const decision = evaluate(statementsOf(policy), { action: 'UserGet', kinds: ['profile'], role: 'r', requestMetadata: {} });
        expect(decision.allow && maskProfile(profile, decision.fields)).toEqual(reference(profile, '*', denies).shown);
      }),
    );
    expect('reason' in parsePolicy({ Effect: 'Deny', Action: '*', Resource: ['users.profile.addresses.0', 'users.profile.tags.1'] })).toBe(true);
    expect('reason' in parsePolicy({ Effect: 'Deny', Action: '*', Condition: { StringEquals: { '${user:addresses.0.country}': 'FI' } } })).toBe(true);
  });
});

describe('readsWhole (what a patch or a share may read for the caller)', () => {
  const at = (p: string, root: string) => root === '' || p === root || p.startsWith(`${root}.`);

  it('holds exactly where the masking shows the value whole: against the reference', () => {
    fc.assert(
      fc.property(policyArb, profileArb, fc.oneof(fc.constant(''), pathArb), (policy, profile, path) => {
        const decision = evaluate(statementsOf(policy), { action: 'UserGet', kinds: ['profile'], role: 'r', requestMetadata: {} });
        const expected = reference(profile, policy.allow, policy.denies);
        if (expected.refused || !decision.allow) return;
        const allows = policy.allow === '*' ? ['' as string] : policy.allow.filter((a) => !policy.denies.some((d) => at(a, d)));
        // The reference's rule: granted at or above the path, and no Deny at, above or below it.
        const whole = allows.some((a) => at(path, a)) && !policy.denies.some((d) => at(d, path) || at(path, d));
        expect(readsWhole(decision.fields, path)).toBe(whole);
        // Whole means unmasked: every value at the path shows as stored.
        const shown = maskProfile(profile, decision.fields);
        if (whole) expect(path === '' ? shown : valuesAtPath(shown, path)).toEqual(path === '' ? profile : valuesAtPath(profile, path));
      }),
      { numRuns: 1000 },
    );
  });
});

// F4: an answer other than UserGet shows at most what UserGet shows: both grants together.
describe('intersectGrants against the reference', () => {
  it('shows in clear exactly the values both grants show in clear', () => {
    const grantOf = (policy: { allow: '*' | string[]; denies: string[] }) => {
      const decision = evaluate(statementsOf(policy), { action: 'UserGet', kinds: ['profile'], role: 'r', requestMetadata: {} });
      return decision.allow ? decision.fields : null;
    };
    let both = 0;
    fc.assert(
      fc.property(policyArb, policyArb, profileArb.map(uniqueLeaves), (one, two, profile) => {
        const [a, b] = [grantOf(one), grantOf(two)];
        const [ra, rb] = [reference(profile, one.allow, one.denies), reference(profile, two.allow, two.denies)];
        const seen = (r: typeof ra) => (r.refused ? new Set<string>() : clearValues(r.shown));
        const expected = [...seen(ra)].filter((v) => seen(rb).has(v)).sort();
        if (a === null || b === null) return;
        const grant = intersectGrants(a, b);
        const got = grant === null ? [] : [...clearValues(maskProfile(profile, grant))].sort();
        if (expected.length > 0) both++;
        expect(got).toEqual(expected);
        // Either way round, and with everything granted it is the other grant.
        expect(intersectGrants(b, a) === null ? [] : [...clearValues(maskProfile(profile, intersectGrants(b, a)!))].sort()).toEqual(expected);
        expect(intersectGrants(a, '*')).toBe(a);
      }),
      { numRuns: 3000 },
    );
    // The property saw values shown by both grants, not only empty answers.
    expect(both).toBeGreaterThan(100);
  });
});
