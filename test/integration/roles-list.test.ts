// RoleListAllRoles: every role, page by page, with its owner mark and linked policies; the main tenant's admins only.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { it } from '../fixtures/vault.js';

const run = randomBytes(3).toString('hex');

describe('RoleListAllRoles', () => {
  it('pages through exactly the roles there are, in id order, with their marks and policies', async ({ vault }) => {
    const policy = await vault.call('PolicyCreate', { policyname: `p-${run}`, policy: [{ Effect: 'Allow', Action: 'UserGet', Resource: '*' }] });
    expect(policy.status).toBe(200);
    const made: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await vault.call('RoleCreate', { rolename: `r-${run}-${i}`, ...(i % 2 === 0 && { managedby: `uid-${i}` }) });
      made.push(r.body.roleid);
      if (i % 3 === 0) expect((await vault.call('RoleLinkPolicy', { roleid: r.body.roleid, policyid: policy.body.policyid })).status).toBe(200);
    }
    const all = await vault.call('RoleListAllRoles', { limit: 1000 });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(all.body.rows.length);
    const ids = all.body.rows.map((r: { roleid: number }) => r.roleid);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const [i, id] of made.entries()) {
      const row = all.body.rows.find((r: { roleid: number }) => r.roleid === id);
      expect(row.rolename).toBe(`r-${run}-${i}`);
      expect(row.managedby).toBe(i % 2 === 0 ? `uid-${i}` : undefined);
      expect(row.policies).toEqual(i % 3 === 0 ? [{ policyid: policy.body.policyid, policyname: `p-${run}` }] : []);
    }
    // Any page is the slice of the whole list at its offset, and says the same total.
    await fc.assert(
      fc.asyncProperty(fc.nat(ids.length + 2), fc.integer({ min: 1, max: 5 }), async (offset, limit) => {
        const page = await vault.call('RoleListAllRoles', { offset, limit });
        expect(page.status).toBe(200);
        expect(page.body.total).toBe(ids.length);
        expect(page.body.rows.map((r: { roleid: number }) => r.roleid)).toEqual(ids.slice(offset, offset + limit));
      }),
      { numRuns: 25 },
    );
  });

  it('is refused to another tenant’s admin and to xtokens', async ({ vault }) => {
    const tenant = await vault.call('TenantCreate', { tenantname: `t${run}`, tenantorg: 'Org' });
    const asAdmin = await vault.call('RoleListAllRoles', {}, { 'X-Bunker-Token': tenant.body.xtoken, 'X-Bunker-Tenant': `t${run}` });
    expect(asAdmin.status).toBe(403);
    const role = await vault.call('RoleCreate', { rolename: `x-${run}` });
    const xtoken = await vault.call('XTokenCreateForRole', { roleid: role.body.roleid });
    expect((await vault.call('RoleListAllRoles', {}, { 'X-Bunker-Token': xtoken.body.xtoken })).status).toBe(403);
  });
});
