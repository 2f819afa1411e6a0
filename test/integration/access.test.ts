// Roles, policies and xtokens over HTTP: what each kind of credential may do, and what it sees.
import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

const it = vaultTest({ env: { STRONGROOM_XTOKEN_MAX_SECONDS: '3600' } });

const unique = (base: string) => `${base}-${Math.random().toString(36).slice(2, 8)}`;
const as = (xtoken: string) => ({ 'x-bunker-token': xtoken });

/** A role with the given policy documents linked, and an xtoken for it in the main tenant. */
async function roleWith(vault: TestVault, ...documents: unknown[]): Promise<{ rolename: string; roleid: number; xtoken: string }> {
  const rolename = unique('role');
  const role = await vault.call('RoleCreate', { rolename, roledesc: 'test role' });
  expect(role.status, JSON.stringify(role.body)).toBe(200);
  for (const policy of documents) {
    const p = await vault.call('PolicyCreate', { policyname: unique('policy'), policy });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    const link = await vault.call('RoleLinkPolicy', { rolename, policyid: p.body.policyid });
    expect(link.body).toEqual({ status: 'ok', roleid: role.body.roleid });
  }
  const x = await vault.call('XTokenCreateForRole', { roleid: role.body.roleid });
  expect(x.status).toBe(200);
  return { rolename, roleid: role.body.roleid, xtoken: x.body.xtoken };
}

describe('roles and policies', () => {
  it('creates, reads, lists, renames and links them, with 409 for taken names and 404 for unknown ones', async ({ vault }) => {
    const rolename = unique('r');
    const role = await vault.call('RoleCreate', { rolename });
    expect(role.body.roleid).toBeGreaterThan(0);
    expect((await vault.call('RoleCreate', { rolename })).body).toEqual({ status: 'error', message: 'The role record already exists' });
    const policy = { Effect: 'Allow', Principal: { Role: rolename }, Action: ['UserGet'], Resource: ['*'] };
    const policyname = unique('p');
    const made = await vault.call('PolicyCreate', { policyname, policydesc: 'reads', policy });
    expect(made.status).toBe(200);
    expect((await vault.call('PolicyCreate', { policyname, policy })).status).toBe(409);
    expect((await vault.call('PolicyGet', { policyname })).body).toEqual({ status: 'ok', policyid: made.body.policyid, policyname, policydesc: 'reads', policy });
    expect((await vault.call('PolicyListAllPolicies')).body.rows).toContainEqual({ policyid: made.body.policyid, policyname, policydesc: 'reads' });
    expect((await vault.call('PolicyUpdate', { policyid: made.body.policyid, policydesc: 'reads more' })).status).toBe(200);
    expect((await vault.call('PolicyGet', { policyid: made.body.policyid })).body.policydesc).toBe('reads more');
    // Renamed only once no Principal names it (security-policy.test.ts, M1).
    expect((await vault.call('RoleUpdate', { roleid: role.body.roleid, rolename: `${rolename}x` })).status).toBe(409);
    expect((await vault.call('PolicyUpdate', { policyid: made.body.policyid, policy: { ...policy, Principal: undefined } })).status).toBe(200);
    expect((await vault.call('RoleUpdate', { roleid: role.body.roleid, rolename: `${rolename}x` })).status).toBe(200);
    // Linking twice is fine and answers the role id both times.
    for (let i = 0; i < 2; i++) expect((await vault.call('RoleLinkPolicy', { roleid: role.body.roleid, policyname })).body.roleid).toBe(role.body.roleid);
    expect((await vault.call('RoleLinkPolicy', { rolename: 'nosuchrole', policyname })).status).toBe(404);
    expect((await vault.call('PolicyGet', { policyid: 999_999 })).body.message).toBe('The policy record was not found');
    expect((await vault.call('XTokenCreateForRole', { rolename: 'nosuchrole' })).status).toBe(404);
  });

  it('unlinks and deletes them: a deleted role takes its xtokens along, an unlinked or deleted policy stops applying', async ({ vault }) => {
    const user = (await vault.call('UserCreate', { profile: buildProfile() })).body.token as string;
    const ref = { mode: 'token', identity: user };
    const r = await roleWith(vault, { Effect: 'Allow', Action: 'UserGet' }, { Effect: 'Allow', Action: 'AuditListUserEvents' });
    expect((await vault.call('UserGet', ref, as(r.xtoken))).status).toBe(200);
    expect((await vault.call('AuditListUserEvents', ref, as(r.xtoken))).status).toBe(200);
    const [first, second] = (await vault.call('PolicyListAllPolicies')).body.rows.slice(-2) as { policyid: number; policyname: string }[];

    // Unlinking the UserGet policy ends that grant at once; unlinking again is no error.
    expect((await vault.call('RoleUnlinkPolicy', { rolename: r.rolename, policyid: first!.policyid })).body).toEqual({ status: 'ok', roleid: r.roleid });
    expect((await vault.call('RoleUnlinkPolicy', { rolename: r.rolename, policyid: first!.policyid })).status).toBe(200);
    expect((await vault.call('UserGet', ref, as(r.xtoken))).status).toBe(403);
    expect((await vault.call('AuditListUserEvents', ref, as(r.xtoken))).status).toBe(200);

    // A deleted policy is gone from every role that held it.
    expect((await vault.call('PolicyDelete', { policyname: second!.policyname })).body).toEqual({ status: 'ok', policyid: second!.policyid });
    expect((await vault.call('PolicyGet', { policyid: second!.policyid })).status).toBe(404);
    expect((await vault.call('AuditListUserEvents', ref, as(r.xtoken))).status).toBe(403);
    expect((await vault.call('PolicyDelete', { policyid: second!.policyid })).body.message).toBe('The policy record was not found');

    // A deleted role's xtokens stop at once: the credential is gone, not merely powerless.
    expect((await vault.call('RoleDelete', { roleid: r.roleid })).status).toBe(200);
    expect((await vault.call('UserGet', ref, as(r.xtoken))).body).toEqual({ status: 'error', message: 'Access denied' });
    expect((await vault.call('RoleDelete', { rolename: r.rolename })).body.message).toBe('The role record was not found');
    expect((await vault.call('RoleDelete', {})).body.message).toBe('Missing API request parameters: roleid');
    expect((await vault.call('RoleUnlinkPolicy', { rolename: r.rolename })).status).toBe(400);
  });

  it('refuses a malformed policy document with a 400 naming what is wrong', async ({ vault }) => {
    const bad = await vault.call('PolicyCreate', { policyname: unique('bad'), policy: { Effect: 'Perhaps', Action: 'UserGet' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^Invalid API request parameter: policy: Effect/);
    expect((await vault.call('PolicyCreate', { policyname: unique('bad'), policy: 'allow all' })).status).toBe(400);
  });

  it('keeps role and policy definitions to the main tenant admins', async ({ vault }) => {
    const t = await vault.call('TenantCreate', { tenantname: unique('acc').replace('-', ''), tenantorg: 'x' });
    for (const op of ['RoleCreate', 'PolicyCreate', 'RoleLinkPolicy', 'RoleUpdate', 'PolicyUpdate']) {
      expect((await vault.call(op, { rolename: 'x', policyname: 'x', policy: {} }, as(t.body.xtoken))).status, op).toBe(403);
    }
  });
});

describe('role xtokens', () => {
  it('do what their policies allow and nothing else; a partial grant masks the profile', async ({ vault }) => {
    const writer = await roleWith(vault, { Effect: 'Allow', Action: ['UserCreate'] });
    const profile = { ...buildProfile(), age: 41, vip: true };
    const made = await vault.call('UserCreate', { profile }, as(writer.xtoken));
    expect(made.status).toBe(200);
    expect((await vault.call('UserGet', { mode: 'token', identity: made.body.token }, as(writer.xtoken))).body).toEqual({
      status: 'error',
      message: 'API access denied',
    });

    const reader = await roleWith(vault, { Effect: 'Allow', Action: 'UserGet', Resource: ['users.profile.name', 'users.profile.email'] });
    const got = await vault.call('UserGet', { mode: 'token', identity: made.body.token }, as(reader.xtoken));
    expect(got.status).toBe(200);
    const expected: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(profile)) {
      if (k === 'name' || k === 'email') expected[k] = v;
      else if (typeof v === 'string') expected[k] = '***';
    }
    expect(got.body.profile).toEqual(expected);
    expect(got.body.profile).not.toHaveProperty('age');
    // A field grant means nothing where the answer is not masked profiles (audit events carry data in other shapes).
    const auditor = await roleWith(vault, { Effect: 'Allow', Action: 'AuditListUserEvents', Resource: 'users.profile.name' });
    expect((await vault.call('AuditListUserEvents', { mode: 'token', identity: made.body.token }, as(auditor.xtoken))).body.message).toBe('API access denied');
    // Root sees it whole.
    expect((await vault.call('UserGet', { mode: 'token', identity: made.body.token })).body.profile).toEqual(profile);
  });

  it('follow conditions on request_metadata, and an explicit Deny wins', async ({ vault }) => {
    const conditional = await roleWith(vault, {
      Effect: 'Allow',
      Action: 'UserGet',
      Condition: { StringEquals: { '${request_metadata:purpose}': ['support', 'audit'] } },
    });
    const made = await vault.call('UserCreate', { profile: buildProfile() });
    const ask = (request_metadata?: unknown) => vault.call('UserGet', { mode: 'token', identity: made.body.token, request_metadata }, as(conditional.xtoken));
    expect((await ask({ purpose: 'support' })).status).toBe(200);
    expect((await ask({ purpose: 'marketing' })).status).toBe(403);
    expect((await ask()).status).toBe(403);

    const denied = await roleWith(vault, { Effect: 'Allow', Action: '*' }, { Effect: 'Deny', Action: 'UserGet' });
    expect((await vault.call('UserGet', { mode: 'token', identity: made.body.token }, as(denied.xtoken))).status).toBe(403);
    expect((await vault.call('UserCreate', { profile: buildProfile() }, as(denied.xtoken))).status).toBe(200);
  });

  it('never reach admin operations, whatever their policies say', async ({ vault }) => {
    const everything = await roleWith(vault, { Effect: 'Allow', Action: '*' });
    for (const [op, body] of [
      ['TenantListTenants', {}],
      ['RoleCreate', { rolename: unique('x') }],
      ['XTokenCreateForRole', { roleid: everything.roleid }],
      ['TenantCreate', { tenantname: 'nope', tenantorg: 'x' }],
    ] as const) {
      expect((await vault.call(op, body, as(everything.xtoken))).status, op).toBe(403);
    }
  });

  it('expire, by default after 10 minutes and never past the cap', async ({ vault }) => {
    const role = await roleWith(vault, { Effect: 'Allow', Action: 'UserGet' });
    const now = Math.floor(Date.now() / 1000);
    const plain = await vault.call('XTokenCreateForRole', { roleid: role.roleid });
    expect(plain.body.expires - now).toBeGreaterThanOrEqual(599);
    expect(plain.body.expires - now).toBeLessThanOrEqual(601);
    const long = await vault.call('XTokenCreateForRole', { roleid: role.roleid, finaltime: '30d' });
    expect(long.body.expires - now).toBeLessThanOrEqual(3601);
    const asked = Math.floor(Date.now() / 1000);
    const short = await vault.call('XTokenCreateForRole', { roleid: role.roleid, finaltime: '1s' });
    expect(short.body.expires - asked).toBeGreaterThanOrEqual(1);
    expect(short.body.expires - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(1);
    // As if the second had passed (the token was never used, so nothing has it cached).
    await vault.api.services.db.orm.em
      .getConnection()
      .execute('update strongroom.credentials set expires_at = expires_at - 3600 where hash = ?', [createHash('sha256').update(short.body.xtoken).digest('hex')]);
    const late = await vault.call('UserGet', { mode: 'login', identity: 'x' }, as(short.body.xtoken));
    expect(late.body).toEqual({ status: 'error', message: 'Access denied' });
    // Stored as hashes only.
    const rows = await vault.api.services.db.orm.em.getConnection().execute('select hash from strongroom.credentials');
    expect(JSON.stringify(rows)).not.toContain(plain.body.xtoken);
  });
});

describe('login xtokens', () => {
  it('read their own record only, and cannot change or erase it directly', async ({ vault }) => {
    const mine = buildProfile();
    const me = await vault.call('UserCreate', { profile: mine });
    const other = await vault.call('UserCreate', { profile: buildProfile() });
    const x = await vault.call('XTokenCreateForUser', { mode: 'email', identity: mine.email });
    expect(x.status).toBe(200);
    expect(x.body.token).toBe(me.body.token);
    const login = as(x.body.xtoken);
    expect((await vault.call('UserGet', { mode: 'token', identity: me.body.token }, login)).body.profile).toEqual(mine);
    expect((await vault.call('UserGet', { mode: 'email', identity: mine.email }, login)).status).toBe(200);
    expect((await vault.call('UserListVersions', { mode: 'token', identity: me.body.token }, login)).status).toBe(200);
    // Someone else, or no one: the same 403.
    const denied = { status: 'error', message: 'Access denied' };
    expect((await vault.call('UserGet', { mode: 'token', identity: other.body.token }, login)).body).toEqual(denied);
    expect((await vault.call('UserGet', { mode: 'email', identity: 'nobody@example.com' }, login)).body).toEqual(denied);
    for (const op of ['UserDelete', 'UserUpdate', 'UserPatch', 'UserCreate', 'BulkListUnlock', 'TokenCreate']) {
      expect((await vault.call(op, { mode: 'token', identity: me.body.token, profile: {}, patch: [] }, login)).status, op).toBe(403);
    }
    expect((await vault.call('XTokenCreateForUser', { mode: 'token', identity: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
  });

  it('reach the members of their groups as their group role’s policy allows, masked, and no one else', async ({ vault }) => {
    const parent = buildProfile();
    const child = { ...buildProfile(), school: 'Elm Street' };
    const stranger = buildProfile();
    const parentRole = unique('parent');
    const childRole = unique('child');
    await vault.call('RoleCreate', { rolename: parentRole });
    await vault.call('RoleCreate', { rolename: childRole });
    const policy = await vault.call('PolicyCreate', {
      policyname: unique('family-read'),
      policy: {
        Effect: 'Allow',
        Principal: { Role: parentRole },
        Action: ['UserGet'],
        Resource: ['${target_group_members:role/' + childRole + '}.profile.name', '${target_group_members:role/' + childRole + '}.profile.email'],
        Condition: { StringEquals: { '${user_group_id}': '${target_group_id}' } },
      },
    });
    await vault.call('RoleLinkPolicy', { rolename: parentRole, policyid: policy.body.policyid });
    const groupname = unique('family');
    await vault.call('GroupCreate', { groupname });
    const p = await vault.call('UserCreate', { profile: parent, groupname, rolename: parentRole });
    const c = await vault.call('UserCreate', { profile: child, groupname, rolename: childRole });
    const s = await vault.call('UserCreate', { profile: stranger });
    const login = async (token: string) => as((await vault.call('XTokenCreateForUser', { mode: 'token', identity: token })).body.xtoken);

    const asParent = await login(p.body.token);
    const seen = await vault.call('UserGet', { mode: 'token', identity: c.body.token }, asParent);
    expect(seen.status).toBe(200);
    const expected: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(child)) {
      if (k === 'name' || k === 'email') expected[k] = v;
      else if (typeof v === 'string') expected[k] = '***';
    }
    expect(seen.body.profile).toEqual(expected);
    // Not a member of the parent's group; and the history of a member is not a masked profile: both refused.
    expect((await vault.call('UserGet', { mode: 'token', identity: s.body.token }, asParent)).status).toBe(403);
    expect((await vault.call('UserListVersions', { mode: 'token', identity: c.body.token }, asParent)).status).toBe(403);
    // The child's role has no policy: the parent's record stays out of reach.
    const asChild = await login(c.body.token);
    expect((await vault.call('UserGet', { mode: 'token', identity: p.body.token }, asChild)).body).toEqual({ status: 'error', message: 'Access denied' });
    expect((await vault.call('UserGet', { mode: 'token', identity: c.body.token }, asChild)).body.profile).toEqual(child);
  });
});
