// Owner marks on roles and policies (`managedby`, beyond the contract): stored at creation, read back by RoleGet and
// PolicyGet, validated at the edge, and kept by updates that do not name them. The operator relies on them to
// change only what it made.
import { describe, expect } from 'vitest';
import { it, type TestVault } from '../fixtures/vault.js';

const unique = (base: string) => `${base}-${Math.random().toString(36).slice(2, 8)}`;
const readNames = { Effect: 'Allow', Action: ['UserGet'], Resource: ['users.profile.name'] };

async function ok(vault: TestVault, op: string, body: object): Promise<Record<string, any>> {
  const answer = await vault.call(op, body);
  expect(answer.status, `${op}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

describe('owner marks', () => {
  it('stores the mark of a role and a policy and reads both back, with the policies linked to the role', async ({ vault }) => {
    const rolename = unique('marked');
    const mark = '6f1c2a34-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
    const { roleid } = await ok(vault, 'RoleCreate', { rolename, roledesc: 'made by a tool', managedby: mark });
    const policyname = unique('marked.read');
    const { policyid } = await ok(vault, 'PolicyCreate', { policyname, policydesc: 'names', policy: readNames, managedby: mark });
    await ok(vault, 'RoleLinkPolicy', { roleid, policyid });

    const role = { status: 'ok', roleid, rolename, roledesc: 'made by a tool', managedby: mark, policies: [{ policyid, policyname }] };
    expect((await vault.call('RoleGet', { rolename })).body).toEqual(role);
    expect((await vault.call('RoleGet', { roleid })).body).toEqual(role);
    expect((await vault.call('PolicyGet', { policyname })).body).toEqual({ status: 'ok', policyid, policyname, policydesc: 'names', policy: readNames, managedby: mark });
  });

  it('leaves the mark out for roles and policies made without one', async ({ vault }) => {
    const rolename = unique('plain');
    const { roleid } = await ok(vault, 'RoleCreate', { rolename });
    expect((await vault.call('RoleGet', { rolename })).body).toEqual({ status: 'ok', roleid, rolename, roledesc: '', policies: [] });
    const policyname = unique('plain');
    const { policyid } = await ok(vault, 'PolicyCreate', { policyname, policy: readNames });
    expect((await vault.call('PolicyGet', { policyid })).body).toEqual({ status: 'ok', policyid, policyname, policydesc: '', policy: readNames });
    // An empty mark is no mark.
    const empty = unique('empty');
    await ok(vault, 'RoleCreate', { rolename: empty, managedby: '' });
    expect((await vault.call('RoleGet', { rolename: empty })).body).not.toHaveProperty('managedby');
  });

  it('keeps the mark through updates that do not name it, changes it when given, and removes it when empty', async ({ vault }) => {
    const rolename = unique('kept');
    const { roleid } = await ok(vault, 'RoleCreate', { rolename, roledesc: 'before', managedby: 'owner-a' });
    await ok(vault, 'RoleUpdate', { rolename, roledesc: 'after' });
    expect((await vault.call('RoleGet', { roleid })).body).toMatchObject({ roledesc: 'after', managedby: 'owner-a' });
    const renamed = `${rolename}x`;
    await ok(vault, 'RoleUpdate', { roleid, rolename: renamed });
    expect((await vault.call('RoleGet', { roleid })).body).toMatchObject({ rolename: renamed, roledesc: 'after', managedby: 'owner-a' });
    await ok(vault, 'RoleUpdate', { roleid, managedby: 'owner-b' });
    expect((await vault.call('RoleGet', { roleid })).body).toMatchObject({ rolename: renamed, roledesc: 'after', managedby: 'owner-b' });
    await ok(vault, 'RoleUpdate', { roleid, managedby: '' });
    expect((await vault.call('RoleGet', { roleid })).body).not.toHaveProperty('managedby');

    const policyname = unique('kept');
    const { policyid } = await ok(vault, 'PolicyCreate', { policyname, policy: readNames, managedby: 'owner-a' });
    const emails = { Effect: 'Allow', Action: ['UserGet'], Resource: ['users.profile.email'] };
    await ok(vault, 'PolicyUpdate', { policyid, policydesc: 'emails', policy: emails });
    expect((await vault.call('PolicyGet', { policyid })).body).toMatchObject({ policydesc: 'emails', policy: emails, managedby: 'owner-a' });
    await ok(vault, 'PolicyUpdate', { policyname, managedby: 'owner-b' });
    expect((await vault.call('PolicyGet', { policyid })).body).toMatchObject({ policydesc: 'emails', managedby: 'owner-b' });
  });

  it('refuses a mark that is not a short printable string with a 400 naming managedby, and stores nothing', async ({ vault }) => {
    const bad: unknown[] = ['x'.repeat(257), 42, 'has space', 'line\nbreak', ['a']];
    for (const managedby of bad) {
      const rolename = unique('bad');
      const role = await vault.call('RoleCreate', { rolename, managedby });
      expect(role.status, JSON.stringify(managedby)).toBe(400);
      expect(role.body.message).toMatch(/^Invalid API request parameter: managedby/);
      expect((await vault.call('RoleGet', { rolename })).status).toBe(404);
      const policy = await vault.call('PolicyCreate', { policyname: rolename, policy: readNames, managedby });
      expect(policy.status).toBe(400);
      expect(policy.body.message).toMatch(/^Invalid API request parameter: managedby/);
    }
    expect((await vault.call('RoleCreate', { rolename: unique('longest'), managedby: 'x'.repeat(256) })).status).toBe(200);

    const rolename = unique('guarded');
    const { roleid } = await ok(vault, 'RoleCreate', { rolename, managedby: 'owner-a' });
    expect((await vault.call('RoleUpdate', { roleid, managedby: 'x'.repeat(257) })).body.message).toMatch(/^Invalid API request parameter: managedby/);
    expect((await vault.call('PolicyUpdate', { policyname: rolename, managedby: 7 })).body.message).toMatch(/^Invalid API request parameter: managedby/);
    expect((await vault.call('RoleGet', { roleid })).body.managedby).toBe('owner-a');
  });

  it('serves RoleGet to main-tenant admins only, with 400 for no role named and 404 for an unknown one', async ({ vault }) => {
    const rolename = unique('private');
    await ok(vault, 'RoleCreate', { rolename, managedby: 'owner-a' });
    expect((await vault.call('RoleGet', {})).body).toEqual({ status: 'error', message: 'Missing API request parameters: roleid' });
    expect((await vault.call('RoleGet', { rolename: unique('nosuch') })).body).toEqual({ status: 'error', message: 'The role record was not found' });

    const tenant = await ok(vault, 'TenantCreate', { tenantname: `t${Math.random().toString(36).slice(2, 8)}`, tenantorg: 'Other' });
    const asTenantAdmin = await vault.call('RoleGet', { rolename }, { 'x-bunker-token': tenant.xtoken });
    expect(asTenantAdmin.status).toBe(403);
    expect(JSON.stringify(asTenantAdmin.body)).not.toContain('owner-a');
  });
});
