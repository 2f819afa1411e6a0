// Tenant owner marks (`managedby`, finding N1): a tool that names its mark acts only on the tenant carrying exactly
// that mark. TenantRotateAdminToken and TenantDelete with a mark never touch the main tenant, an unmarked tenant or
// one marked by anyone else; TenantUpdate sets a mark only where there is none. Generated calls are checked against
// a model of the marks kept by the test.
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, type TestVault } from '../fixtures/vault.js';

const it = vaultTest();
const nameOf = (base: string) => `${base}${Math.random().toString(36).slice(2, 8)}`;

async function tenant(vault: TestVault, managedby?: string) {
  const tenantname = nameOf('own');
  const made = await vault.call('TenantCreate', { tenantname, tenantorg: 'Org', ...(managedby !== undefined && { managedby }) });
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  return { id: made.body.tenantid as number, name: tenantname, admin: made.body.xtoken as string };
}

const adminWorks = async (vault: TestVault, t: { id: number; name: string; admin: string }) =>
  (await vault.call('TenantGet', { tenantid: t.id }, { 'x-bunker-token': t.admin, 'x-bunker-tenant': t.name })).status === 200;

describe('tenant owner marks', () => {
  it('are set by TenantCreate, shown by TenantGet, and refused in bad shapes with a 400 naming the field', async ({ vault }) => {
    const marked = await tenant(vault, 'uid-1234');
    expect((await vault.call('TenantGet', { tenantid: marked.id })).body).toMatchObject({ tenantid: marked.id, managedby: 'uid-1234' });
    const plain = await tenant(vault);
    expect((await vault.call('TenantGet', { tenantid: plain.id })).body).not.toHaveProperty('managedby');
    const bad = await vault.call('TenantCreate', { tenantname: nameOf('bad'), tenantorg: 'Org', managedby: 'has space' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('managedby');
    expect((await vault.call('TenantGet', { tenantid: 1 })).body).not.toHaveProperty('managedby');
  });

  it('keep the main tenant out of reach of every marked call', async ({ vault }) => {
    const rotate = await vault.call('TenantRotateAdminToken', { tenantid: 1, managedby: 'uid-main' });
    expect(rotate.status).toBe(400);
    expect(rotate.body.message).toContain('managedby');
    expect((await vault.call('TenantUpdate', { tenantid: 1, managedby: 'uid-main' })).status).toBe(400);
    expect((await vault.call('TenantDelete', { tenantid: 1, managedby: 'uid-main' })).status).toBe(400);
    expect((await vault.call('TenantGet', { tenantid: 1 })).body).not.toHaveProperty('managedby');
  });

  it('may be set only by the main tenant, and only where there is none', async ({ vault }) => {
    const t = await tenant(vault);
    const own = { 'x-bunker-token': t.admin, 'x-bunker-tenant': t.name };
    expect((await vault.call('TenantUpdate', { tenantid: t.id, managedby: 'uid-self' }, own)).status).toBe(403);
    expect((await vault.call('TenantUpdate', { tenantid: t.id, managedby: 'uid-a' })).status).toBe(200);
    expect((await vault.call('TenantUpdate', { tenantid: t.id, managedby: 'uid-b' })).status).toBe(409);
    expect((await vault.call('TenantUpdate', { tenantid: t.id, managedby: 'uid-a', tenantorg: 'Again' })).status).toBe(200);
    expect((await vault.call('TenantUpdate', { tenantid: t.id, managedby: '' })).status).toBe(200);
    expect((await vault.call('TenantGet', { tenantid: t.id })).body).not.toHaveProperty('managedby');
    expect((await vault.call('TenantUpdate', { tenantid: t.id, managedby: 'uid-b' })).status).toBe(200);
    expect((await vault.call('TenantGet', { tenantid: t.id })).body).toMatchObject({ managedby: 'uid-b', tenantorg: 'Again' });
  });

  it('let a marked rotation or deletion act exactly where the model says the mark matches', async ({ vault }) => {
    const marks = ['uid-a', 'uid-b', undefined] as const;
    const tenants: { id: number; name: string; admin: string; mark: string | undefined }[] = [];
    for (const mark of marks) tenants.push({ ...(await tenant(vault, mark)), mark });
    await fc.assert(
      fc.asyncProperty(fc.nat(tenants.length - 1), fc.constantFrom('uid-a', 'uid-b', 'uid-c', ''), fc.boolean(), async (which, given, rotate) => {
        const t = tenants[which]!;
        const matches = t.mark !== undefined && t.mark === given;
        if (rotate) {
          const answer = await vault.call('TenantRotateAdminToken', { tenantid: t.id, managedby: given });
          expect(answer.status, JSON.stringify(answer.body)).toBe(matches ? 200 : 409);
          if (matches) t.admin = answer.body.xtoken;
        } else {
          // A deletion that would happen is checked against a copy: the model's tenants must stay.
          const copy = await tenant(vault, t.mark);
          const answer = await vault.call('TenantDelete', { tenantid: copy.id, managedby: given });
          expect(answer.status, JSON.stringify(answer.body)).toBe(matches ? 200 : 409);
          expect((await vault.call('TenantGet', { tenantid: copy.id })).status).toBe(matches ? 404 : 200);
        }
        for (const each of tenants) expect(await adminWorks(vault, each)).toBe(true);
      }),
      { numRuns: 30 },
    );
  });
});

describe('TenantGet by tenantname', () => {
  it('finds a tenant with its mark, answers 404 for none, and 403 alike to anyone else for any name', async ({ vault }) => {
    const t = await tenant(vault, 'uid-by-name');
    const other = await tenant(vault);
    expect((await vault.call('TenantGet', { tenantname: t.name })).body).toMatchObject({ tenantid: t.id, tenantname: t.name, managedby: 'uid-by-name' });
    const missing = await vault.call('TenantGet', { tenantname: 'nosuchtenant' });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('The tenant record was not found');
    expect((await vault.call('TenantGet', { tenantname: 'Not-A-Name' })).status).toBe(400);
    expect((await vault.call('TenantGet', { tenantid: t.id, tenantname: t.name })).status).toBe(400);
    const own = { 'x-bunker-token': t.admin, 'x-bunker-tenant': t.name };
    expect((await vault.call('TenantGet', { tenantname: t.name }, own)).status).toBe(200);
    const refusedOther = await vault.call('TenantGet', { tenantname: other.name }, own);
    const refusedNone = await vault.call('TenantGet', { tenantname: 'nosuchtenant' }, own);
    expect([refusedOther.status, refusedNone.status]).toEqual([403, 403]);
    expect(refusedOther.body).toEqual(refusedNone.body);
  });
});

// Findings of the operator's second review: a call the operator makes in a tenant by name (XTokenCreateForRole with
// x-bunker-tenant) carries the mark it proved, and the vault acts only where the tenant it resolved carries it; a
// marked tenant is renamed only by a call naming its mark, so its own admin cannot move it from under its tool.
describe('XTokenCreateForRole with an owner mark', () => {
  it('makes an xtoken only in a tenant carrying exactly that mark, as a model of the marks says', async ({ vault }) => {
    const rolename = nameOf('guarded');
    expect((await vault.call('RoleCreate', { rolename })).status).toBe(200);
    const tenants = [
      { ...(await tenant(vault, 'uid-x')), mark: 'uid-x' as string | undefined },
      { ...(await tenant(vault, 'uid-y')), mark: 'uid-y' as string | undefined },
      { ...(await tenant(vault)), mark: undefined as string | undefined },
      { id: 1, name: 'main', admin: '', mark: undefined as string | undefined },
    ];
    await fc.assert(
      fc.asyncProperty(fc.nat(tenants.length - 1), fc.constantFrom('uid-x', 'uid-y', 'uid-z', '', undefined), async (which, given) => {
        const t = tenants[which]!;
        const before = (await vault.call('XTokenListForRole', { rolename }, { 'x-bunker-tenant': t.name })).body.total as number;
        const answer = await vault.call('XTokenCreateForRole', { rolename, finaltime: '1h', ...(given !== undefined && { managedby: given }) }, { 'x-bunker-tenant': t.name });
        // The oracle: no mark given, any tenant; a mark given, only the tenant carrying it; never the main tenant.
        const expected = given === undefined || (t.mark !== undefined && t.mark === given) ? 200 : t.id === 1 ? 400 : 409;
        expect(answer.status, JSON.stringify(answer.body)).toBe(expected);
        const after = (await vault.call('XTokenListForRole', { rolename }, { 'x-bunker-tenant': t.name })).body.total as number;
        expect(after).toBe(before + (expected === 200 ? 1 : 0));
        if (expected !== 200) expect(answer.body).not.toHaveProperty('xtoken');
      }),
      { numRuns: 40 },
    );
  });
});

describe('renaming a tenant that carries an owner mark', () => {
  it('is allowed only to a main-tenant call naming the mark, as a model of the marks says', async ({ vault }) => {
    const tenants = [
      { ...(await tenant(vault, 'uid-r')), mark: 'uid-r' as string | undefined },
      { ...(await tenant(vault)), mark: undefined as string | undefined },
    ].map((t) => ({ ...t, base: t.name }));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(tenants.length - 1), fc.constantFrom('root', 'own'), fc.constantFrom('uid-r', 'uid-s', '', undefined), async (which, caller, given) => {
        const t = tenants[which]!;
        const tenantname = `${t.base}r${++n}`;
        const headers: Record<string, string> = caller === 'own' ? { 'x-bunker-token': t.admin, 'x-bunker-tenant': t.name } : {};
        const answer = await vault.call('TenantUpdate', { tenantid: t.id, tenantname, ...(given !== undefined && { managedby: given }) }, headers);
        // The oracle: setting a mark is the main tenant's (403); a tenant marked otherwise refuses a new mark (409);
        // a marked tenant takes a new name only from a call naming its mark (409); the rest is renamed.
        let expected = 200;
        if (given !== undefined && caller === 'own') expected = 403;
        else if (t.mark !== undefined && given !== t.mark) expected = 409;
        expect(answer.status, JSON.stringify(answer.body)).toBe(expected);
        if (expected === 200) {
          t.name = tenantname;
          if (given !== undefined) t.mark = given || undefined;
        }
        const now = (await vault.call('TenantGet', { tenantid: t.id })).body;
        expect(now.tenantname).toBe(t.name);
        expect(now.managedby).toBe(t.mark);
      }),
      { numRuns: 40 },
    );
  });
});

describe('TenantListTenants by owner mark', () => {
  it('lists exactly the tenants carrying the mark, whatever their names', async ({ vault }) => {
    const mark = nameOf('uid-list-');
    const marked = [await tenant(vault, mark), await tenant(vault, mark)];
    await tenant(vault, `${mark}x`);
    await tenant(vault);
    const listed = await vault.call('TenantListTenants', { managedby: mark });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(2);
    expect(listed.body.rows.map((r: { tenantid: number }) => r.tenantid).sort()).toEqual(marked.map((t) => t.id).sort());
    expect(listed.body.rows.every((r: { managedby?: string }) => r.managedby === mark)).toBe(true);
    expect((await vault.call('TenantListTenants', { managedby: 'has space' })).status).toBe(400);
    const own = { 'x-bunker-token': marked[0]!.admin, 'x-bunker-tenant': marked[0]!.name };
    expect((await vault.call('TenantListTenants', { managedby: mark }, own)).status).toBe(403);
  });
});
