// The life of xtokens: a person's login xtokens go with the person on every path of removal (and a restore does not
// bring them back); one xtoken is revoked by its id; admins list them by role or person, never seeing a secret;
// and none of it reaches across tenants. Policies are read by the main tenant's admins only.
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { test as it, buildProfile, type TestVault } from '../fixtures/vault.js';
import { usingPostgres } from '../fixtures/database.js';

const as = (token: string, tenant?: string) => ({ 'x-bunker-token': token, ...(tenant ? { 'x-bunker-tenant': tenant } : {}) });
const unique = (base: string) => `${base}${Math.random().toString(36).slice(2, 8)}`;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const DENIED = { status: 'error', message: 'Access denied' };
const NOT_FOUND = { status: 'error', message: 'The xtoken record was not found' };

async function ok(vault: TestVault, op: string, body?: unknown, headers?: Record<string, string>): Promise<Record<string, any>> {
  const res = await vault.call(op, body, headers);
  expect(res.status, `${op} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** A tenant of its own, with its admin's headers. */
async function tenant(vault: TestVault): Promise<{ name: string; id: number; admin: Record<string, string>; adminToken: string }> {
  const name = unique('xt');
  const made = await ok(vault, 'TenantCreate', { tenantname: name, tenantorg: name });
  return { name, id: made.tenantid, admin: as(made.xtoken), adminToken: made.xtoken };
}

/** A person in the tenant of `admin` and a login xtoken of theirs, already used once (so this process caches it). */
async function personWithLogin(vault: TestVault, admin: Record<string, string>, extra: Record<string, unknown> = {}) {
  const profile = buildProfile();
  const token = (await ok(vault, 'UserCreate', { profile, ...extra }, admin)).token as string;
  const ref = { mode: 'token', identity: token };
  const login = await ok(vault, 'XTokenCreateForUser', ref, admin);
  expect(login).toMatchObject({ xtoken: expect.any(String), xtokenid: expect.any(String), token });
  expect((await vault.call('UserGet', ref, as(login.xtoken))).status).toBe(200);
  expect((await vault.call('LegalBasisListAgreements', {}, as(login.xtoken))).status).toBe(200);
  return { profile, token, ref, xtoken: login.xtoken as string, xtokenid: login.xtokenid as string };
}

/**
 * The xtoken is refused as a credential. UserGet alone would not tell: a live login xtoken asking for a removed
 * record is refused too. LegalBasisListAgreements answers any live login xtoken of the tenant.
 */
async function expectDead(vault: TestVault, xtoken: string) {
  expect((await vault.call('LegalBasisListAgreements', {}, as(xtoken))).body).toEqual(DENIED);
}

/** How many credentials of the person are stored, whatever the tenant. */
async function storedLogins(vault: TestVault, userToken: string): Promise<number> {
  const rows = await vault.api.services.db.orm.em.getConnection().execute('select count(*)::int as n from strongroom.credentials where user_token = ?', [userToken]);
  return Number(rows[0]?.n);
}

/** Restores the person from their kept versions (when any are kept) and checks the login xtoken stays dead. */
async function restoreAndCheck(vault: TestVault, t: { id: number; name: string }, p: { token: string; xtoken: string; ref: object }, restorable: boolean) {
  const unlockuuid = (await ok(vault, 'BulkListUnlock')).unlockuuid;
  const back = await vault.call('SystemRestoreUserProfile', { unlockuuid, token: p.token, tenantid: t.id });
  // Only SystemDeleteUserProfiles keeps versions to restore from; the other removals erase them.
  expect(back.status, JSON.stringify(back.body)).toBe(restorable ? 200 : 404);
  if (restorable) expect((await vault.call('UserGet', p.ref, as(vault.rootToken, t.name))).status).toBe(200);
  await expectDead(vault, p.xtoken);
  expect(await storedLogins(vault, p.token)).toBe(0);
}

describe('a removed person takes their login xtokens along', () => {
  it('UserDelete: refused at once, and still after a restore attempt', async ({ vault }) => {
    const t = await tenant(vault);
    const p = await personWithLogin(vault, t.admin);
    // A second login xtoken, never used: it goes too.
    const unused = await ok(vault, 'XTokenCreateForUser', p.ref, t.admin);
    expect(await storedLogins(vault, p.token)).toBe(2);
    await ok(vault, 'UserDelete', p.ref, t.admin);
    await expectDead(vault, p.xtoken);
    await expectDead(vault, unused.xtoken);
    await restoreAndCheck(vault, t, p, false);
  });

  it('UserDeleteBulk: every listed person’s login xtokens go, others stay', async ({ vault }) => {
    const t = await tenant(vault);
    const a = await personWithLogin(vault, t.admin);
    const b = await personWithLogin(vault, t.admin);
    const kept = await personWithLogin(vault, t.admin);
    expect((await ok(vault, 'UserDeleteBulk', { users: [a.ref, { mode: 'email', identity: b.profile.email }] }, t.admin)).deleted_count).toBe(2);
    for (const p of [a, b]) await expectDead(vault, p.xtoken);
    expect((await vault.call('UserGet', kept.ref, as(kept.xtoken))).status).toBe(200);
    expect(await storedLogins(vault, kept.token)).toBe(1);
    await restoreAndCheck(vault, t, a, false);
  });

  it('an approved forget-me request (UserDeleteRequest → UserRequestApprove)', async ({ vault }) => {
    const t = await tenant(vault);
    const p = await personWithLogin(vault, t.admin);
    // The person asks with their own login xtoken; it works until the request is approved.
    const forget = await ok(vault, 'UserDeleteRequest', p.ref, as(p.xtoken));
    expect((await vault.call('UserGet', p.ref, as(p.xtoken))).status).toBe(200);
    await ok(vault, 'UserRequestApprove', { requestuuid: forget.requestuuid }, t.admin);
    await expectDead(vault, p.xtoken);
    await restoreAndCheck(vault, t, p, false);
  });

  it('SystemDeleteUserProfiles: the restored person is back, their old login xtoken is not', async ({ vault }) => {
    const t = await tenant(vault);
    const p = await personWithLogin(vault, t.admin);
    const unlockuuid = (await ok(vault, 'BulkListUnlock')).unlockuuid;
    await ok(vault, 'SystemDeleteUserProfiles', { unlockuuid, mode: 'email', identity: p.profile.email });
    await expectDead(vault, p.xtoken);
    await restoreAndCheck(vault, t, p, true);
    // A new login xtoken for the restored person works: only the old ones are gone.
    const fresh = await ok(vault, 'XTokenCreateForUser', p.ref, t.admin);
    expect((await vault.call('UserGet', p.ref, as(fresh.xtoken))).status).toBe(200);
  });

  it('the sweeper’s expiry of a person removes their login xtokens in the same transaction', async ({ vault }) => {
    const t = await tenant(vault);
    const profile = buildProfile();
    const token = (await ok(vault, 'UserCreate', { profile, finaltime: '1h' }, t.admin)).token as string;
    const ref = { mode: 'token', identity: token };
    // Not used before the sweep: a cached principal of an expired person lapses within the cache's 5 seconds.
    const login = await ok(vault, 'XTokenCreateForUser', ref, t.admin);
    const survivor = await personWithLogin(vault, t.admin);
    expect(await storedLogins(vault, token)).toBe(1);
    expect(await vault.api.services.sweeper.sweepOnce(Math.floor(Date.now() / 1000) + 7_200)).toBeGreaterThanOrEqual(1);
    expect(await storedLogins(vault, token)).toBe(0);
    await expectDead(vault, login.xtoken);
    expect((await vault.call('UserGet', survivor.ref, as(survivor.xtoken))).status).toBe(200);
    await restoreAndCheck(vault, t, { token, ref, xtoken: login.xtoken }, false);
  });

  it.skipIf(!usingPostgres())('lets a tenant’s database role remove its own people’s login xtokens and nothing else (PostgreSQL only: the embedded database has no tenant roles)', async ({ vault }) => {
    const a = await tenant(vault);
    const b = await tenant(vault);
    const pa = await personWithLogin(vault, a.admin);
    const pb = await personWithLogin(vault, b.admin);
    const { x1 } = await roleWithXTokens(vault, a.admin);
    const role = vault.api.services.db.roleOf!(a.id);
    const client = new pg.Client({ connectionString: vault.api.services.config.databaseUrl });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(`set local role "${role}"`);
      const del = async (where: string, params: unknown[]) => (await client.query(`delete from strongroom.credentials where ${where}`, params)).rowCount;
      // Another tenant's person, this tenant's role xtokens, anything but a login: invisible to the role.
      expect(await del(`tenant_id = $1 and user_token = $2`, [b.id, pb.token])).toBe(0);
      expect(await del(`tenant_id = $1 and kind = 'role'`, [a.id])).toBe(0);
      expect(await del(`kind <> 'login'`, [])).toBe(0);
      expect(await del(`tenant_id = $1 and user_token = $2`, [a.id, pa.token])).toBe(1);
      await client.query('savepoint s');
      // Nor may it read a hash.
      await expect(client.query('select hash from strongroom.credentials')).rejects.toThrow(/permission denied/);
      await client.query('rollback to savepoint s');
      await client.query('rollback');
    } finally {
      await client.end();
    }
    // Rolled back: every xtoken still works.
    for (const [ref, token] of [[pa.ref, pa.xtoken], [pb.ref, pb.xtoken], [pa.ref, x1.xtoken]] as const) expect((await vault.call('UserGet', ref, as(token))).status).toBe(200);
  });

  it('works in the main tenant too, through the root token', async ({ vault }) => {
    const p = await personWithLogin(vault, as(vault.rootToken));
    await ok(vault, 'UserDelete', p.ref);
    await expectDead(vault, p.xtoken);
    await restoreAndCheck(vault, { id: 1, name: 'main' }, p, false);
  });
});

/** A role allowed every operation, and two xtokens of it in the tenant of `admin`. */
async function roleWithXTokens(vault: TestVault, admin: Record<string, string>) {
  const rolename = unique('everything');
  const roleid = (await ok(vault, 'RoleCreate', { rolename })).roleid as number;
  const policyname = unique('all');
  await ok(vault, 'PolicyCreate', { policyname, policy: { Effect: 'Allow', Action: '*', Resource: '*' } });
  await ok(vault, 'RoleLinkPolicy', { roleid, policyname });
  const x1 = await ok(vault, 'XTokenCreateForRole', { roleid }, admin);
  const x2 = await ok(vault, 'XTokenCreateForRole', { rolename, finaltime: '2h' }, admin);
  for (const x of [x1, x2]) expect(x).toEqual({ status: 'ok', xtoken: expect.any(String), xtokenid: expect.stringMatching(/^[0-9a-f-]{36}$/), expires: expect.any(Number) });
  return { rolename, roleid, x1, x2 };
}

/** Neither the secret nor its stored hash appears anywhere in an answer. */
function expectNoSecrets(answer: unknown, secrets: string[]) {
  const text = JSON.stringify(answer);
  for (const s of secrets) {
    expect(text).not.toContain(s);
    expect(text).not.toContain(sha256(s));
  }
}

describe('XTokenRevoke and the xtoken lists', () => {
  it('revokes one role xtoken by id: refused at once, the other xtoken of the role goes on', async ({ vault }) => {
    const t = await tenant(vault);
    const { x1, x2 } = await roleWithXTokens(vault, t.admin);
    const user = (await ok(vault, 'UserCreate', { profile: buildProfile() }, t.admin)).token;
    const ref = { mode: 'token', identity: user };
    expect((await vault.call('UserGet', ref, as(x1.xtoken))).status).toBe(200);
    expect(await ok(vault, 'XTokenRevoke', { xtokenid: x1.xtokenid }, t.admin)).toEqual({ status: 'ok', xtokenid: x1.xtokenid, kind: 'role' });
    expect((await vault.call('UserGet', ref, as(x1.xtoken))).body).toEqual(DENIED);
    expect((await vault.call('UserGet', ref, as(x2.xtoken))).status).toBe(200);
    // Once gone it is unknown; so is an id that never was.
    expect((await vault.call('XTokenRevoke', { xtokenid: x1.xtokenid }, t.admin)).body).toEqual(NOT_FOUND);
    expect((await vault.call('XTokenRevoke', { xtokenid: randomUUID() }, t.admin)).body).toEqual(NOT_FOUND);
    // The id is accepted in upper case as well.
    expect((await vault.call('XTokenRevoke', { xtokenid: x2.xtokenid.toUpperCase() }, t.admin)).status).toBe(200);
    expect((await vault.call('UserGet', ref, as(x2.xtoken))).body).toEqual(DENIED);
  });

  it('revokes one login xtoken by id, and audits it in the person’s trail', async ({ vault }) => {
    const t = await tenant(vault);
    const p = await personWithLogin(vault, t.admin);
    const other = await ok(vault, 'XTokenCreateForUser', p.ref, t.admin);
    expect(await ok(vault, 'XTokenRevoke', { xtokenid: p.xtokenid }, t.admin)).toEqual({ status: 'ok', xtokenid: p.xtokenid, kind: 'login' });
    await expectDead(vault, p.xtoken);
    expect((await vault.call('UserGet', p.ref, as(other.xtoken))).status).toBe(200);
    const events = (await ok(vault, 'AuditListUserEvents', p.ref, t.admin)).rows.map((r: { eventtype: string }) => r.eventtype);
    expect(events).toContain('XTokenRevoke');
    expect(events).toContain('XTokenCreateForUser');
  });

  it('lists a role’s and a person’s live xtokens by id, kind and times, never a secret or its hash', async ({ vault }) => {
    const t = await tenant(vault);
    const { roleid, rolename, x1, x2 } = await roleWithXTokens(vault, t.admin);
    const p = await personWithLogin(vault, t.admin);
    const byRole = await ok(vault, 'XTokenListForRole', { rolename }, t.admin);
    // Oldest first; two made in the same second come in no particular order.
    const byId = (a: { xtokenid: string }, b: { xtokenid: string }) => a.xtokenid.localeCompare(b.xtokenid);
    expect({ ...byRole, rows: [...byRole.rows].sort(byId) }).toEqual({
      status: 'ok',
      roleid,
      total: 2,
      rows: [x1, x2].map((x) => ({ xtokenid: x.xtokenid, kind: 'role', expires: x.expires, created: expect.any(Number) })).sort(byId),
    });
    expect(byRole.rows[0].created).toBeLessThanOrEqual(x1.expires);
    const byUser = await ok(vault, 'XTokenListForUser', { mode: 'email', identity: p.profile.email }, t.admin);
    expect(byUser).toEqual({ status: 'ok', token: p.token, total: 1, rows: [{ xtokenid: p.xtokenid, kind: 'login', expires: expect.any(Number), created: expect.any(Number) }] });
    expectNoSecrets([byRole, byUser], [x1.xtoken, x2.xtoken, p.xtoken, t.adminToken, vault.rootToken]);
    // Each list holds its own kind only: the login xtoken is no role's, the role xtokens are no person's.
    expect(byRole.rows.map((r: { xtokenid: string }) => r.xtokenid)).not.toContain(p.xtokenid);
    // A revoked xtoken leaves its list; an unknown role or person is 404; neither named is 400.
    await ok(vault, 'XTokenRevoke', { xtokenid: x1.xtokenid }, t.admin);
    expect((await ok(vault, 'XTokenListForRole', { roleid }, t.admin)).rows.map((r: { xtokenid: string }) => r.xtokenid)).toEqual([x2.xtokenid]);
    expect((await vault.call('XTokenListForRole', { rolename: unique('nosuch') }, t.admin)).body).toEqual({ status: 'error', message: 'The role record was not found' });
    expect((await vault.call('XTokenListForRole', {}, t.admin)).body).toEqual({ status: 'error', message: 'Missing API request parameters: roleid' });
    expect((await vault.call('XTokenListForUser', { mode: 'email', identity: 'nobody@example.com' }, t.admin)).status).toBe(404);
    expect((await vault.call('XTokenListForUser', {}, t.admin)).status).toBe(400);
  });

  it('keeps ids within their tenant: another tenant’s admin gets 404 for them, lists none, and 403 naming the tenant', async ({ vault }) => {
    const a = await tenant(vault);
    const b = await tenant(vault);
    const { rolename, x1 } = await roleWithXTokens(vault, a.admin);
    const p = await personWithLogin(vault, a.admin);
    // The same answer as for an id that never was: nothing tells B the id exists.
    for (const xtokenid of [x1.xtokenid, p.xtokenid]) expect((await vault.call('XTokenRevoke', { xtokenid }, b.admin)).body).toEqual(NOT_FOUND);
    expect((await vault.call('XTokenListForRole', { rolename }, b.admin)).body).toMatchObject({ total: 0, rows: [] });
    expect((await vault.call('XTokenListForUser', p.ref, b.admin)).body).toEqual({ status: 'error', message: 'The user record was not found' });
    // B's admin naming tenant A is turned away before the operation.
    for (const [op, body] of [['XTokenRevoke', { xtokenid: x1.xtokenid }], ['XTokenListForRole', { rolename }], ['XTokenListForUser', p.ref]] as const) {
      expect((await vault.call(op, body, as(b.adminToken, a.name))).body, op).toEqual(DENIED);
    }
    // Both xtokens still work.
    expect((await vault.call('UserGet', p.ref, as(p.xtoken))).status).toBe(200);
    expect((await vault.call('UserGet', p.ref, as(x1.xtoken))).status).toBe(200);
    // Root revokes in any tenant, from the main one as from tenant A.
    expect((await vault.call('XTokenRevoke', { xtokenid: x1.xtokenid })).body).toEqual({ status: 'ok', xtokenid: x1.xtokenid, kind: 'role' });
    expect((await vault.call('XTokenRevoke', { xtokenid: p.xtokenid }, as(vault.rootToken, a.name))).body).toEqual({ status: 'ok', xtokenid: p.xtokenid, kind: 'login' });
    await expectDead(vault, x1.xtoken);
    await expectDead(vault, p.xtoken);
  });

  it('is closed to login and role xtokens, whatever their policy, and refuses malformed ids naming the field', async ({ vault }) => {
    const t = await tenant(vault);
    const { rolename, x1, x2 } = await roleWithXTokens(vault, t.admin);
    const p = await personWithLogin(vault, t.admin);
    for (const caller of [x1.xtoken, p.xtoken]) {
      // Its own id, another's, the lists: all refused, the role's `Allow *` notwithstanding.
      for (const xtokenid of [x1.xtokenid, x2.xtokenid, p.xtokenid]) expect((await vault.call('XTokenRevoke', { xtokenid }, as(caller))).body).toEqual(DENIED);
      expect((await vault.call('XTokenListForRole', { rolename }, as(caller))).body).toEqual(DENIED);
      expect((await vault.call('XTokenListForUser', p.ref, as(caller))).body).toEqual(DENIED);
    }
    expect((await vault.call('UserGet', p.ref, as(x2.xtoken))).status).toBe(200);
    expect((await vault.call('XTokenRevoke', {}, t.admin)).body).toEqual({ status: 'error', message: 'Missing API request parameters: xtokenid' });
    for (const xtokenid of ['not-an-id', '12345', 12345, `${x1.xtokenid}x`, ` ${x1.xtokenid}`, x1.xtoken.slice(0, 35), { id: x1.xtokenid }, [x1.xtokenid]]) {
      const res = await vault.call('XTokenRevoke', { xtokenid }, t.admin);
      expect(res.status, JSON.stringify(xtokenid)).toBe(400);
      expect(res.body.message).toMatch(/^Invalid API request parameter: xtokenid: /);
    }
    // The secret itself is not an id: revoking by it finds nothing.
    expect((await vault.call('XTokenRevoke', { xtokenid: x1.xtoken }, t.admin)).body).toEqual(NOT_FOUND);
    expect((await vault.call('UserGet', p.ref, as(x1.xtoken))).status).toBe(200);
  });

  it('never revokes a root or tenant admin token: their ids answer 404 and they keep working', async ({ vault }) => {
    const t = await tenant(vault);
    const conn = vault.api.services.db.orm.em.getConnection();
    const idOf = async (token: string) => ((await conn.execute('select id from strongroom.credentials where hash = ?', [sha256(token)]))[0] as { id: string }).id;
    const adminId = await idOf(t.adminToken);
    const rootId = await idOf(vault.rootToken);
    for (const headers of [t.admin, as(vault.rootToken)]) {
      for (const xtokenid of [adminId, rootId]) expect((await vault.call('XTokenRevoke', { xtokenid }, headers)).body).toEqual(NOT_FOUND);
    }
    expect((await vault.call('TenantGet', { tenantid: t.id }, t.admin)).status).toBe(200);
    expect((await vault.call('TenantListTenants')).status).toBe(200);
  });
});

describe('policies are the main tenant’s admins’ business', () => {
  it('refuses PolicyGet and PolicyListAllPolicies to another tenant’s admin and to role xtokens', async ({ vault }) => {
    const t = await tenant(vault);
    const { x1 } = await roleWithXTokens(vault, t.admin);
    const policyname = unique('secret');
    const made = await ok(vault, 'PolicyCreate', { policyname, policy: { Effect: 'Allow', Action: 'UserGet' } });
    for (const headers of [t.admin, as(x1.xtoken)]) {
      expect((await vault.call('PolicyGet', { policyname }, headers)).body).toEqual(DENIED);
      expect((await vault.call('PolicyGet', { policyid: made.policyid }, headers)).body).toEqual(DENIED);
      expect((await vault.call('PolicyListAllPolicies', {}, headers)).body).toEqual(DENIED);
    }
    expect((await ok(vault, 'PolicyGet', { policyname })).policyid).toBe(made.policyid);
    expect((await ok(vault, 'PolicyListAllPolicies')).rows).toContainEqual({ policyid: made.policyid, policyname, policydesc: '' });
  });
});
