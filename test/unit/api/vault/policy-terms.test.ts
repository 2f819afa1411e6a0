// What a policy may say (M1): an Action names operations in the engine's one wildcard grammar, a condition's key is
// one whole variable and its wanted values are a non-empty list of scalars. Anything else would make a Deny that
// silently does nothing, so it is refused when the policy is written.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { evaluate, parsePolicy, type PolicyStatement } from '../../../../api/vault/policy.js';
import { operations } from '../../../../api/ops/index.js';

const actions = operations.map((o) => o.name);
const vocabulary = { actions };
const denyOf = (Action: string, Condition?: PolicyStatement['Condition']) => parsePolicy([{ Effect: 'Deny', Action, ...(Condition ? { Condition } : {}) }], vocabulary);

describe('Actions', () => {
  it('refuses the attacker’s typos and wildcards, naming them', () => {
    for (const action of ['UserGett', 'userget', '*Get', 'User?et', 'Nothing*', 'User**', 'U*r']) {
      const parsed = denyOf(action);
      expect('reason' in parsed && parsed.reason, action).toMatch(new RegExp(`^0\\.Action: ${action.replace(/[*?]/g, '\\$&')} names no operation`));
    }
    expect('reason' in denyOf('userget') && (denyOf('userget') as { reason: string }).reason).toContain('did you mean UserGet?');
  });

  it('takes a name, `*` and a prefix of names, and only those: against an oracle of the grammar', () => {
    // Words built from pieces of real names, in any case, with wildcards anywhere.
    const piece = fc.constantFrom(...actions, ...actions.map((a) => a.slice(0, 4)), 'user', 'Get', 'X', '');
    const actionArb = fc.tuple(piece, fc.constantFrom('', '*', '?'), piece, fc.constantFrom('', '*')).map((p) => p.join('')).filter((a) => a !== '');
    fc.assert(
      fc.property(actionArb, (action) => {
        const prefix = action.slice(0, -1);
        const valid = action === '*' || actions.includes(action) || (action.endsWith('*') && !/[*?]/.test(prefix) && actions.some((a) => a.startsWith(prefix)));
        const parsed = denyOf(action);
        expect('statements' in parsed, action).toBe(valid);
        // Accepted means effective: the Deny refuses every operation it names, and there is at least one.
        if (!valid) return;
        const named = actions.filter((a) => action === '*' || a === action || (action.endsWith('*') && a.startsWith(prefix)));
        expect(named.length).toBeGreaterThan(0);
        for (const name of named) {
          const d = evaluate([{ Effect: 'Allow', Action: '*' }, { Effect: 'Deny', Action: action }], { action: name, kinds: [], role: 'r', requestMetadata: {} });
          expect(d.allow, name).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('are not checked against the operations in a stored document (read without a vocabulary)', () => {
    expect('statements' in parsePolicy({ Effect: 'Deny', Action: 'UserGett' })).toBe(true);
  });
});

describe('Conditions', () => {
  it('refuse a key that is no variable, an empty list, a value that is no scalar, and an operator without tests', () => {
    for (const [condition, why] of [
      [{ StringEquals: { country: 'FI' } }, /StringEquals\.country: a test's key is one whole variable/],
      [{ StringEquals: { '${user:country}': [] } }, /StringEquals\.\$\{user:country\}: an empty list/],
      [{ StringEquals: { '${user:country}': { a: 1 } } }, /wanted values are strings, numbers or booleans/],
      [{ StringEquals: { '${user:country}': [null] } }, /wanted values are strings, numbers or booleans/],
      [{ StringEquals: {} }, /StringEquals: no test/],
    ] as const) {
      const parsed = denyOf('*', condition as PolicyStatement['Condition']);
      expect('reason' in parsed && parsed.reason, JSON.stringify(condition)).toMatch(why);
      expect('reason' in parsed && parsed.reason).toMatch(/^0\.Condition\./);
    }
    expect('statements' in denyOf('*', { StringEquals: { '${user:country}': ['FI', 'SE'], '${request_metadata:n}': 3 }, Bool: { '${request_metadata:b}': true } })).toBe(true);
  });

  it('either refuse a generated test or let it decide: a Deny whose condition holds refuses the call', () => {
    const key = fc.constantFrom('${request_metadata:k}', 'k', '${request_metadata:k', 'request_metadata:k');
    const wanted = fc.oneof(fc.constantFrom('v', 1, true), fc.array(fc.constantFrom('v', 'w'), { maxLength: 2 }), fc.constant(null), fc.constant({}));
    fc.assert(
      fc.property(key, wanted, (k, w) => {
        const parsed = denyOf('UserGet', { StringEquals: { [k]: w } });
        if ('reason' in parsed) return;
        // Accepted: the request that sends what is wanted is refused.
        const first = Array.isArray(w) ? w[0] : w;
        const d = evaluate([{ Effect: 'Allow', Action: '*' }, ...parsed.statements], { action: 'UserGet', kinds: ['profile'], role: 'r', requestMetadata: { k: first } });
        expect(d.allow).toBe(false);
      }),
    );
  });
});
