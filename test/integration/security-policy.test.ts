// Security review findings on the policy engine, reproduced over HTTP: field Denies through arrays and wildcards
// inside paths (N6), unknown `${…}` variables (N13); a fresh attacker's H1 (a role handed out through a group),
// H2 (unknown statement keys), M1 (Denies that do nothing), M2 (array indexes) and M3 (reads through patches and
// shares, also in security-policy-reads.test.ts).
import { describe, expect } from 'vitest';
import fc from 'fast-check';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';
import { person, roleWith } from '../fixtures/roles.js';
import { policyArb, profileArb, reference, statementsOf } from '../fixtures/mask-reference.js';

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
    const stores = vault.api.services.db.global().roles;
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

/** A login xtoken (as headers) for a fresh person, and the person. */
async function loggedIn(vault: TestVault) {
  const p = await person(vault);
  const made = await vault.call('XTokenCreateForUser', p.ref);
  expect(made.status).toBe(200);
  return { ...p, headers: { 'x-bunker-token': made.body.xtoken as string } };
}

describe('H1: a role is handed out only by admins', () => {
  it('a role xtoken allowed GroupAddUser cannot give a membership a role, nor UserCreate/UserCreateBulk one', async ({ vault }) => {
    const suffix = Date.now() % 100000;
    const godName = `god-${suffix}`;
    await vault.call('RoleCreate', { rolename: godName });
    await vault.call('PolicyCreate', { policyname: godName, policy: { Effect: 'Allow', Action: '*', Resource: '*' } });
    await vault.call('RoleLinkPolicy', { rolename: godName, policyname: godName });
    const groupmgr = await roleWith(vault, { Effect: 'Allow', Action: ['GroupAddUser', 'UserCreate', 'UserCreateBulk'], Resource: ['users.group', 'users.profile'] });
    const groupname = `famB-${suffix}`;
    expect((await vault.call('GroupCreate', { groupname })).status).toBe(200);
    const mallory = await loggedIn(vault);
    const ada = await person(vault, { ssn: 'ADA-SECRET' });

    const grant = await vault.call('GroupAddUser', { groupname, ...mallory.ref, rolename: godName }, groupmgr);
    expect(grant.status).toBe(403);
    expect(grant.body).toEqual({ status: 'error', message: 'Access denied' });
    expect((await vault.call('UserGet', mallory.ref)).body.grouproles).toEqual([]);
    const read = await vault.call('UserGet', ada.ref, mallory.headers);
    expect(read.status).toBe(403);
    expect(JSON.stringify(read.body)).not.toContain('ADA-SECRET');

    const created = await vault.call('UserCreate', { profile: buildProfile(), groupname, rolename: godName }, groupmgr);
    expect(created.status).toBe(403);
    const bulk = await vault.call('UserCreateBulk', { records: [{ profile: buildProfile(), groupname, rolename: godName }] }, groupmgr);
    expect(bulk.status).toBe(403);
    // Joining without a role stays the delegate's to do; the root token may give the role.
    expect((await vault.call('GroupAddUser', { groupname, ...mallory.ref }, groupmgr)).status).toBe(200);
    expect((await vault.call('GroupAddUser', { groupname, ...mallory.ref, rolename: godName })).status).toBe(200);
  });

  it('a group role whose policy has no group condition reaches every person of the tenant (as documented)', async ({ vault }) => {
    const rolename = `staff-${Date.now() % 100000}`;
    await vault.call('RoleCreate', { rolename });
    await vault.call('PolicyCreate', { policyname: rolename, policy: { Effect: 'Allow', Action: 'UserGet', Resource: 'users.profile.name' } });
    await vault.call('RoleLinkPolicy', { rolename, policyname: rolename });
    const groupname = `staff-${Date.now() % 100000}`;
    await vault.call('GroupCreate', { groupname });
    const member = await loggedIn(vault);
    const outsider = await person(vault);
    expect((await vault.call('GroupAddUser', { groupname, ...member.ref, rolename })).status).toBe(200);
    const got = await vault.call('UserGet', outsider.ref, member.headers);
    expect(got.status).toBe(200);
    expect(got.body.profile.name).toBe(outsider.profile.name);
  });
});

describe('H2: unknown statement keys', () => {
  it('are refused with a 400 naming the key, at the top level too', async ({ vault }) => {
    const policyname = `strict-${Date.now() % 100000}`;
    for (const [policy, key] of [
      [{ Effect: 'Allow', Action: 'UserGet', Resources: ['users.profile.name'] }, 'Resources'],
      [{ Effect: 'Allow', Action: '*', NotAction: ['UserGet'] }, 'NotAction'],
      [{ Effect: 'Deny', Action: '*', NotResource: 'users.profile.name' }, 'NotResource'],
      [[{ Effect: 'Allow', Action: 'UserGet', Conditions: { StringEquals: { '${request_metadata:p}': 'x' } } }], '0.Conditions'],
      [{ Statement: [{ Effect: 'Allow', Action: 'UserGet', condition: { StringEquals: { '${request_metadata:p}': 'x' } } }] }, 'Statement.0.condition'],
      [{ Statement: [{ Effect: 'Allow', Action: 'UserGet' }], Version: '2012-10-17' }, 'Version'],
      [{ Effect: 'Allow', Action: 'UserGet', Principal: { Role: 'x', AWS: 'x' } }, 'Principal.AWS'],
    ] as const) {
      const res = await vault.call('PolicyCreate', { policyname, policy });
      expect(res.status, key).toBe(400);
      expect(res.body.message).toBe(`Invalid API request parameter: policy: ${key}: unknown key (${key.endsWith('AWS') ? 'Principal takes Role' : key === 'Version' ? 'the document takes Statement' : 'a statement takes Effect, Principal, Action, Resource, Condition'})`);
    }
  });

  it('a stored policy with one keeps its role refusing everything', async ({ vault }) => {
    const p = await person(vault);
    const rolename = `stored-${Date.now() % 100000}`;
    await vault.call('RoleCreate', { rolename });
    await vault.call('PolicyCreate', { policyname: rolename, policy: { Effect: 'Allow', Action: 'UserGet', Resource: '*' } });
    await vault.call('RoleLinkPolicy', { rolename, policyname: rolename });
    const xtoken = { 'x-bunker-token': (await vault.call('XTokenCreateForRole', { rolename })).body.xtoken as string };
    expect((await vault.call('UserGet', p.ref, xtoken)).status).toBe(200);
    // Written before the rule existed: an Allow with NotAction, stored as it was then.
    const policyname = `${rolename}-old`;
    const stores = vault.api.services.db.global().roles;
    await stores.createPolicy(policyname, '', { Effect: 'Allow', Action: '*', NotAction: ['UserGet'] }, null, Math.floor(Date.now() / 1000));
    expect((await vault.call('RoleLinkPolicy', { rolename, policyname })).status).toBe(200);
    await expect.poll(async () => (await vault.call('UserGet', p.ref, xtoken)).status).toBe(403);
  });
});

describe('M1: a Deny that would do nothing', () => {
  it('is refused with a 400 naming the part: typos and wildcards in Action, unknown Principal roles, literal keys, empty lists', async ({ vault }) => {
    const policyname = `m1-${Date.now() % 100000}`;
    for (const [statement, where] of [
      [{ Action: 'UserGett' }, '0.Action: UserGett names no operation'],
      [{ Action: 'userget' }, '0.Action: userget names no operation (did you mean UserGet?)'],
      [{ Action: '*Get' }, '0.Action: *Get names no operation'],
      [{ Action: ['UserGet', 'User?et'] }, '0.Action: User?et names no operation'],
      [{ Action: 'UserGet', Principal: { Role: 'nosuchrole' } }, '0.Principal.Role: no role named nosuchrole'],
      [{ Action: 'UserGet', Condition: { StringEquals: { country: 'FI' } } }, "0.Condition.StringEquals.country: a test's key is one whole variable"],
      [{ Action: 'UserGet', Condition: { StringEquals: { '${user:country}': [] } } }, '0.Condition.StringEquals.${user:country}: an empty list of wanted values matches nothing'],
    ] as const) {
      const res = await vault.call('PolicyCreate', { policyname, policy: { Effect: 'Deny', Resource: '*', ...statement } });
      expect(res.status, where).toBe(400);
      expect(res.body.message).toContain(`Invalid API request parameter: policy: ${where}`);
    }
    const made = await vault.call('PolicyCreate', { policyname, policy: { Effect: 'Deny', Action: ['User*', 'UserGet', '*'], Resource: '*' } });
    expect(made.status).toBe(200);
    const update = await vault.call('PolicyUpdate', { policyname, policy: { Effect: 'Deny', Action: 'UserGet', Principal: { Role: ['nosuchrole'] } } });
    expect(update.status).toBe(400);
    expect(update.body.message).toContain('no role named nosuchrole');
  });
});

describe('M1: a role renamed away from the Principal that names it', () => {
  it('is refused while a policy names it, so its Denies keep applying', async ({ vault }) => {
    const p = await person(vault);
    const rolename = `renamed-${Date.now() % 100000}`;
    await vault.call('RoleCreate', { rolename });
    const policy = [
      { Effect: 'Allow', Action: 'UserGet', Resource: '*' },
      { Effect: 'Deny', Principal: { Role: rolename }, Action: 'UserGet', Resource: '*' },
    ];
    expect((await vault.call('PolicyCreate', { policyname: rolename, policy })).status).toBe(200);
    await vault.call('RoleLinkPolicy', { rolename, policyname: rolename });
    const xtoken = { 'x-bunker-token': (await vault.call('XTokenCreateForRole', { rolename })).body.xtoken as string };
    expect((await vault.call('UserGet', p.ref, xtoken)).status).toBe(403);
    const { roleid } = (await vault.call('RoleGet', { rolename })).body;
    const renamed = await vault.call('RoleUpdate', { roleid, rolename: `${rolename}x` });
    expect(renamed.status).toBe(409);
    expect(renamed.body.message).toBe(`The role is named in the Principal of policy ${rolename}: change that policy first`);
    expect((await vault.call('UserGet', p.ref, xtoken)).status).toBe(403);
    // Its description may change, and with the Principal gone so may its name.
    expect((await vault.call('RoleUpdate', { roleid, rolename, roledesc: 'kept' })).status).toBe(200);
    expect((await vault.call('PolicyUpdate', { policyname: rolename, policy: policy.slice(0, 1) })).status).toBe(200);
    expect((await vault.call('RoleUpdate', { roleid, rolename: `${rolename}x` })).status).toBe(200);
  });
});

describe('M2: array indexes in field paths', () => {
  it('are refused, so no Deny is listed as masking what it does not hide', async ({ vault }) => {
    const res = await vault.call('PolicyCreate', {
      policyname: `m2-${Date.now() % 100000}`,
      policy: [{ Effect: 'Allow', Action: 'UserGet', Resource: '*' }, { Effect: 'Deny', Action: 'UserGet', Resource: ['users.profile.addresses.0', 'users.profile.tags.1'] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Invalid API request parameter: policy: 1\.Resource: users\.profile\.addresses\.0 is no profile field path: a numeric segment .*every element of the arrays/);
  });
});
