// The policy engine: default deny, an explicit Deny wins, field grants, conditions, masking.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { evaluate, maskProfile, parsePolicy, type PolicyStatement, type RequestFacts } from '../../../../api/vault/policy.js';

const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({ action: 'UserGet', kinds: ['profile'], role: 'reader', requestMetadata: {}, ...over });
const ops = ['UserGet', 'UserCreate', 'UserDelete', 'BulkListUsers', 'TokenGet', 'AuditListUserEvents'];

const statementArb: fc.Arbitrary<PolicyStatement> = fc.record(
  {
    Effect: fc.constantFrom('Allow' as const, 'Deny' as const),
    Principal: fc.record({ Role: fc.constantFrom('reader', 'writer', '*') }),
    Action: fc.oneof(fc.constantFrom(...ops, '*', 'User*'), fc.subarray(ops, { minLength: 1 })),
    Resource: fc.oneof(fc.constant('*'), fc.subarray(['users.profile.name', 'users.profile.email', 'users.profile.*'], { minLength: 1 })),
    Condition: fc.constant({ StringEquals: { '${request_metadata:purpose}': 'support' } }),
  },
  { requiredKeys: ['Effect', 'Action'] },
);

describe('evaluate', () => {
  it('denies by default: without an applicable Allow nothing is allowed', () => {
    fc.assert(
      fc.property(fc.array(statementArb.map((s) => ({ ...s, Effect: 'Deny' as const }))), fc.constantFrom(...ops), fc.constantFrom('reader', 'writer'), (statements, action, role) => {
        expect(evaluate(statements, facts({ action, role, requestMetadata: { purpose: 'support' } })).allow).toBe(false);
      }),
    );
    expect(evaluate([], facts()).allow).toBe(false);
  });

  it('lets an applicable whole-call Deny win over any number of Allows', () => {
    fc.assert(
      fc.property(fc.array(statementArb), fc.constantFrom(...ops), (statements, action) => {
        const deny: PolicyStatement = { Effect: 'Deny', Action: action };
        for (const order of [[...statements, deny], [deny, ...statements]]) {
          expect(evaluate(order, facts({ action, requestMetadata: { purpose: 'support' } })).allow).toBe(false);
        }
      }),
    );
  });

  it('allows a matching Allow, by name, wildcard and prefix, for the named role only', () => {
    const allow = (Action: string | string[], Role = 'reader'): PolicyStatement => ({ Effect: 'Allow', Principal: { Role }, Action });
    expect(evaluate([allow('UserGet')], facts())).toEqual({ allow: true, fields: '*' });
    expect(evaluate([allow('*')], facts()).allow).toBe(true);
    expect(evaluate([allow('User*')], facts()).allow).toBe(true);
    expect(evaluate([allow(['TokenGet', 'UserGet'])], facts()).allow).toBe(true);
    expect(evaluate([allow('UserGet', 'writer')], facts()).allow).toBe(false);
    expect(evaluate([allow('UserCreate')], facts()).allow).toBe(false);
  });

  it('grants only the fields its resources name, minus fields a Deny names', () => {
    const d = evaluate(
      [
        { Effect: 'Allow', Action: 'UserGet', Resource: ['users.profile.name', 'users.profile.email', 'users.profile.phone'] },
        { Effect: 'Deny', Action: 'UserGet', Resource: 'users.profile.phone' },
      ],
      facts(),
    );
    expect(d.allow && d.fields !== '*' && [...d.fields].sort()).toEqual(['email', 'name']);
    const all = evaluate([{ Effect: 'Allow', Action: 'UserGet' }, { Effect: 'Deny', Action: 'UserGet', Resource: 'users.profile.ssn' }], facts());
    expect(all.allow).toBe(true);
    if (all.allow) expect(maskProfile({ name: 'A', ssn: '123' }, all.fields)).toEqual({ name: 'A', ssn: '***' });
  });

  it('checks conditions over request_metadata, with lists of values and the three operators', () => {
    const when = (Condition: PolicyStatement['Condition']): PolicyStatement => ({ Effect: 'Allow', Action: 'UserGet', Condition });
    const eq = when({ StringEquals: { '${request_metadata:purpose}': ['education', 'child-welfare'] } });
    expect(evaluate([eq], facts({ requestMetadata: { purpose: 'education' } })).allow).toBe(true);
    expect(evaluate([eq], facts({ requestMetadata: { purpose: 'marketing' } })).allow).toBe(false);
    expect(evaluate([eq], facts()).allow).toBe(false);
    const any = when({ 'ForAnyValue:ListIntersect': { '${request_metadata:teams}': ['red', 'blue'] } });
    expect(evaluate([any], facts({ requestMetadata: { teams: ['green', 'blue'] } })).allow).toBe(true);
    expect(evaluate([any], facts({ requestMetadata: { teams: ['green'] } })).allow).toBe(false);
    const bool = when({ Bool: { '${request_metadata:emergency}': true } });
    expect(evaluate([bool], facts({ requestMetadata: { emergency: 'true' } })).allow).toBe(true);
    expect(evaluate([bool], facts({ requestMetadata: { emergency: false } })).allow).toBe(false);
    // Group variables are not defined by a request yet: such a condition grants nothing.
    expect(evaluate([when({ StringEquals: { '${user_group_id}': '${target_group_id}' } })], facts()).allow).toBe(false);
  });
});

describe('group facts', () => {
  const statement: PolicyStatement = {
    Effect: 'Allow',
    Principal: { Role: 'manager' },
    Action: 'UserGet',
    Resource: ['${target_group_members:role/team-member}.profile.name', '${target_group_members}.profile.phone'],
    Condition: { StringEquals: { '${user_group_id}': '${target_group_id}' } },
  };
  const withGroups = (caller: number[], target: { groupId: number; role: string | null }[]) => facts({ role: 'manager', groups: { caller, target } });

  it('grants the resources of group members only when the target shares a group with the caller', () => {
    const d = evaluate([statement], withGroups([7, 9], [{ groupId: 9, role: 'team-member' }]));
    expect(d.allow && d.fields !== '*' && [...d.fields].sort()).toEqual(['name', 'phone']);
    // Same group, another role: only the role-free resource applies.
    const other = evaluate([statement], withGroups([9], [{ groupId: 9, role: 'contractor' }]));
    expect(other.allow && other.fields !== '*' && [...other.fields]).toEqual(['phone']);
    // No shared group: the condition fails and nothing is granted.
    expect(evaluate([statement], withGroups([7], [{ groupId: 9, role: 'team-member' }])).allow).toBe(false);
    expect(evaluate([statement], facts({ role: 'manager' })).allow).toBe(false);
  });
});

describe('maskProfile', () => {
  it('shows granted fields, turns other strings into *** and leaves other values out', () => {
    const profile = { name: 'Ada', email: 'ada@example.com', age: 36, tags: ['x'], address: { city: 'London' }, vip: true };
    expect(maskProfile(profile, new Set(['name']))).toEqual({ name: 'Ada', email: '***' });
    expect(maskProfile(profile, '*')).toBe(profile);
  });
});

describe('parsePolicy', () => {
  it('accepts a statement, a list and {Statement}, and names what is wrong otherwise', () => {
    const s = { Effect: 'Allow', Principal: { Role: 'r' }, Action: ['UserGet'], Resource: ['*'] };
    for (const doc of [s, [s], { Statement: [s] }]) expect(parsePolicy(doc)).toEqual({ statements: [s] });
    expect(parsePolicy({ ...s, Effect: 'Maybe' })).toMatchObject({ reason: expect.stringMatching(/^Effect/) });
    expect(parsePolicy({ Effect: 'Allow' })).toMatchObject({ reason: expect.stringMatching(/^Action/) });
    expect(parsePolicy({ ...s, Condition: { StringLike: { a: 'b' } } })).toMatchObject({ reason: expect.stringMatching(/unknown operator StringLike/) });
  });
});

describe('parsePolicy is strict (H2: an unknown key would be dropped and the statement grant more than it says)', () => {
  const s = { Effect: 'Allow', Action: 'UserGet', Resource: 'users.profile.name' };
  const KNOWN = ['Effect', 'Principal', 'Action', 'Resource', 'Condition'];

  it('refuses the attacker’s keys, naming each', () => {
    for (const [key, value] of [
      ['NotAction', ['UserGet']],
      ['NotResource', ['users.profile.ssn']],
      ['Resources', ['users.profile.name']],
      ['Conditions', { StringEquals: { '${request_metadata:purpose}': 'x' } }],
      ['condition', { StringEquals: { '${request_metadata:purpose}': 'x' } }],
    ] as const) {
      const parsed = parsePolicy({ Effect: 'Allow', Action: '*', [key]: value });
      expect('reason' in parsed && parsed.reason, key).toBe(`${key}: unknown key (a statement takes Effect, Principal, Action, Resource, Condition)`);
    }
  });

  it('refuses any unknown key in a statement, in its Principal and beside Statement, wherever the statement sits', () => {
    const keyArb = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !KNOWN.includes(k) && k !== '__proto__');
    fc.assert(
      fc.property(keyArb, fc.jsonValue(), fc.constantFrom('statement', 'list', 'wrapped', 'principal', 'top'), (key, value, where) => {
        const bad = { ...s, [key]: value };
        const doc =
          where === 'statement' ? bad
          : where === 'list' ? [s, bad]
          : where === 'wrapped' ? { Statement: [bad] }
          : where === 'principal' ? { ...s, Principal: { Role: 'r', [key]: value } }
          : { Statement: [s], [key]: value };
        // `Statement` beside Statement is no unknown key; `Role` inside Principal neither.
        fc.pre(!(where === 'top' && key === 'Statement') && !(where === 'principal' && key === 'Role'));
        const parsed = parsePolicy(doc);
        expect('reason' in parsed).toBe(true);
        if ('reason' in parsed) expect(parsed.reason).toContain(`${key}: unknown key`);
      }),
    );
  });
});
