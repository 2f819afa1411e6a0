// Security review findings on the policy engine, reproduced over HTTP: field Denies through arrays and wildcards
// inside paths (N6), unknown `${…}` variables (N13).
import { describe, expect } from 'vitest';
import fc from 'fast-check';
import { it, type TestVault } from '../fixtures/vault.js';
import { person, roleWith } from '../fixtures/roles.js';
import { policyArb, profileArb, reference, statementsOf } from '../fixtures/mask-reference.js';
import { GlobalStores } from '../../api/store/stores.js';

const addresses = [
  { city: 'Oulu', zip: '90100' },
  { city: 'Lund', zip: '22100', extra: [{ city: 'Malmö' }] },
];

describe('N6: field Denies', () => {
  it('hide a field in every element of the arrays on its way', async ({ vault }) => {
    const p = await person(vault, { addresses });
    const xtoken = await roleWith(vault, [
      { Effect: 'Allow', Action: 'UserGet', Resource: '*' },
      { Effect: 'Deny', Action: 'UserGet', Resource: 'users.profile.addresses.city' },
    ]);
    const got = await vault.call('UserGet', p.ref, xtoken);
    expect(got.status).toBe(200);
    expect(got.body.profile.addresses).toEqual([
      { city: '***', zip: '90100' },
      { city: '***', zip: '22100', extra: [{ city: 'Malmö' }] },
    ]);
    expect(JSON.stringify(got.body)).not.toContain('Oulu');
    expect(JSON.stringify(got.body)).not.toContain('Lund');
  });

  it('and an allow-list through arrays shows only the granted field of each element', async ({ vault }) => {
    const p = await person(vault, { addresses });
    const xtoken = await roleWith(vault, { Effect: 'Allow', Action: 'UserGet', Resource: ['users.profile.addresses.zip'] });
    const got = await vault.call('UserGet', p.ref, xtoken);
    expect(got.status).toBe(200);
    expect(got.body.profile.addresses).toEqual([
      { city: '***', zip: '90100' },
      { city: '***', zip: '22100' },
    ]);
    expect(JSON.stringify(got.body)).not.toMatch(/Oulu|Lund|Malmö/);
  });

  it('PolicyExplain lists as masked what the masking hides, and PolicyCreate/PolicyUpdate refuse wildcards inside paths', async ({ vault }) => {
    const policyname = `wild-${Date.now() % 100000}`;
    for (const resource of ['users.profile.address.*', 'users.profile.ssn*', 'users.profile.*.city', 'users.profile.addresses[0].city', '${target_group_members}.profile.a*']) {
      const res = await vault.call('PolicyCreate', { policyname, policy: [{ Effect: 'Deny', Action: '*', Resource: resource }] });
      expect(res.status, resource).toBe(400);
      expect(res.body.message).toContain('Resource');
    }
    expect((await vault.call('PolicyCreate', { policyname, policy: { Effect: 'Allow', Action: 'UserGet', Resource: 'users.profile.*' } })).status).toBe(200);
    const update = await vault.call('PolicyUpdate', { policyname, policy: [{ Effect: 'Deny', Action: '*', Resource: 'users.profile.ssn*' }] });
    expect(update.status).toBe(400);

    const rolename = `${policyname}-r`;
    await vault.call('RoleCreate', { rolename });
    const denyName = `${policyname}-d`;
    await vault.call('PolicyCreate', { policyname: denyName, policy: { Effect: 'Deny', Action: 'UserGet', Resource: 'users.profile.addresses.city' } });
    await vault.call('RoleLinkPolicy', { rolename, policyname });
    await vault.call('RoleLinkPolicy', { rolename, policyname: denyName });
    const explained = await vault.call('PolicyExplain', { rolename, operation: 'UserGet' });
    expect(explained.body.fields.masked).toEqual([{ field: 'addresses.city', policy: denyName, statement: 0, effect: 'Deny' }]);
  });
});

describe('N6: over HTTP, against the reference', () => {
  let roles = 0;
  /** A fresh role holding `policy` as its one policy: its name and an xtoken for it. */
  async function role(vault: TestVault, policy: unknown) {
    const rolename = `masked-${++roles}-${Date.now() % 100000}`;
    for (const [op, body] of [
      ['RoleCreate', { rolename }],
      ['PolicyCreate', { policyname: rolename, policy }],
      ['RoleLinkPolicy', { rolename, policyname: rolename }],
    ] as const) {
      expect((await vault.call(op, body)).status, op).toBe(200);
    }
    return { rolename, xtoken: { 'x-bunker-token': (await vault.call('XTokenCreateForRole', { rolename })).body.xtoken as string } };
  }

  it('UserGet through a role shows what the reference shows, and PolicyExplain masks what it masks', async ({ vault }) => {
    await fc.assert(
      fc.asyncProperty(policyArb, profileArb, async (policy, extra) => {
        const p = await person(vault, extra);
        const { rolename, xtoken } = await role(vault, statementsOf(policy));
        const expected = reference(p.profile, policy.allow, policy.denies);
        const got = await vault.call('UserGet', p.ref, xtoken);
        const explained = await vault.call('PolicyExplain', { rolename, operation: 'UserGet' });
        if (expected.refused) {
          expect(got.status).toBe(403);
          expect(explained.body.verdict).toBe('deny');
          return;
        }
        expect(got.status).toBe(200);
        expect(got.body.profile).toEqual(expected.shown);
        const masked = (explained.body.fields.masked as { field: string }[]).map((m) => m.field);
        expect([...new Set(masked)].sort()).toEqual(expected.masked);
      }),
      { numRuns: 15 },
    );
  });

  it('a stored policy the engine no longer accepts refuses everything its role does', async ({ vault }) => {
    const p = await person(vault, { ssn: '123' });
    const { rolename, xtoken } = await role(vault, { Effect: 'Allow', Action: '*', Resource: '*' });
    expect((await vault.call('UserGet', p.ref, xtoken)).status).toBe(200);
    // Written before the rule existed: a Deny with a wildcard inside its path, stored as it was then.
    const policyname = `${rolename}-old`;
    const stores = new GlobalStores(vault.api.services.db.global()).roles;
    await stores.createPolicy(policyname, '', { Effect: 'Deny', Action: '*', Resource: 'users.profile.ssn*' }, null, Math.floor(Date.now() / 1000));
    expect((await vault.call('RoleLinkPolicy', { rolename, policyname })).status).toBe(200);
    await expect.poll(async () => (await vault.call('UserGet', p.ref, xtoken)).status).toBe(403);
  });
});

describe('N13: variables', () => {
  it('PolicyCreate refuses an unknown `${…}` variable, naming it', async ({ vault }) => {
    const policyname = `vars-${Date.now() % 100000}`;
    for (const condition of [
      { StringEquals: { '${request_metadata.purpose}': 'support' } },
      { StringEquals: { '${request-metadata:purpose}': 'support' } },
      { StringEquals: { '${request_metadata:purpose}': '${usr:country}' } },
      { 'ForAnyValue:ListIntersect': { '${user_group_ids}': ['1'] } },
      { StringEquals: { 'x-${user:country}': 'FI' } },
      { StringEquals: { '${user:}': 'FI' } },
    ]) {
      const res = await vault.call('PolicyCreate', { policyname, policy: { Effect: 'Deny', Action: '*', Resource: '*', Condition: condition } });
      expect(res.status, JSON.stringify(condition)).toBe(400);
      expect(res.body.message).toContain('Condition');
    }
    const known = { StringEquals: { '${request_metadata:purpose}': 'support', '${user:address.country}': 'FI', '${agreement:terms}': 'active' } };
    expect((await vault.call('PolicyCreate', { policyname, policy: { Effect: 'Deny', Action: '*', Resource: '*', Condition: known } })).status).toBe(200);
  });
});
