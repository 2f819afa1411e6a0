// Groups over HTTP: their life cycle, memberships with roles, grouproles in user objects, listing members.
import { describe, expect } from 'vitest';
import { it, buildProfile } from '../fixtures/vault.js';

const unique = (base: string) => `${base}-${Math.random().toString(36).slice(2, 8)}`;

describe('groups', () => {
  it('are created, read by id or name, listed, updated and deleted, with 409 and 404 where due', async ({ vault }) => {
    const groupname = unique('team');
    const made = await vault.call('GroupCreate', { groupname, groupdesc: 'the team' });
    expect(made.status).toBe(200);
    const groupid = made.body.groupid as number;
    const expected = { status: 'ok', groupid, groupname, groupdesc: 'the team', grouptype: 'users' };
    expect((await vault.call('GroupGet', { groupid })).body).toEqual(expected);
    expect((await vault.call('GroupGet', { groupname })).body).toEqual(expected);
    expect((await vault.call('GroupCreate', { groupname })).body).toEqual({ status: 'error', message: 'The group record already exists' });
    expect((await vault.call('GroupListAllGroups')).body.rows).toContainEqual({ groupid, groupname, groupdesc: 'the team', grouptype: 'users' });
    expect((await vault.call('GroupUpdate', { groupid, grouptype: 'department', groupdesc: 'renamed' })).status).toBe(200);
    expect((await vault.call('GroupGet', { groupid })).body).toMatchObject({ grouptype: 'department', groupdesc: 'renamed' });
    expect((await vault.call('GroupCreate', { groupname: unique('g'), grouptype: 'x'.repeat(31) })).status).toBe(400);
    expect((await vault.call('GroupDelete', { groupname })).status).toBe(200);
    const gone = await vault.call('GroupGet', { groupid });
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe('The group record was not found');
    expect((await vault.call('GroupUpdate', { groupid, groupdesc: 'x' })).status).toBe(404);
    expect((await vault.call('GroupGet', {})).body.message).toBe('Missing API request parameters: groupid');
  });

  it('hold users with roles: set at creation or by GroupAddUser, shown in grouproles, listed with their role', async ({ vault }) => {
    const rolename = unique('member');
    const role = await vault.call('RoleCreate', { rolename });
    const groupname = unique('family');
    const { groupid } = (await vault.call('GroupCreate', { groupname })).body;
    const parent = buildProfile();
    const child = buildProfile();
    const p = await vault.call('UserCreate', { profile: parent, groupname, rolename });
    expect(p.status).toBe(200);
    const c = await vault.call('UserCreate', { profile: child });
    expect((await vault.call('GroupAddUser', { mode: 'token', identity: c.body.token, groupid })).status).toBe(200);

    const got = await vault.call('UserGet', { mode: 'token', identity: p.body.token });
    expect(got.body.grouproles).toEqual([{ groupid, groupname, grouptype: 'users', roleid: role.body.roleid, rolename }]);
    expect((await vault.call('GroupListUserGroups', { mode: 'token', identity: c.body.token })).body.rows).toEqual([{ groupid, groupname, groupdesc: '' }]);

    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    const members = await vault.call('BulkListGroupUsers', { unlockuuid, groupname });
    expect(members.status).toBe(200);
    expect(members.body.total).toBe(2);
    expect(members.body.rows.map((r: any) => [r.token, r.rolename, r.roleid])).toEqual([
      [p.body.token, rolename, role.body.roleid],
      [c.body.token, null, null],
    ]);
    expect(members.body.rows[0].profile).toEqual(parent);

    // A role change through GroupAddUser, then removal.
    expect((await vault.call('GroupAddUser', { mode: 'token', identity: c.body.token, groupid, rolename })).status).toBe(200);
    expect((await vault.call('UserGet', { mode: 'token', identity: c.body.token })).body.grouproles[0].rolename).toBe(rolename);
    expect((await vault.call('GroupDeleteUser', { mode: 'token', identity: c.body.token, groupid })).status).toBe(200);
    expect((await vault.call('GroupDeleteUser', { mode: 'token', identity: c.body.token, groupid })).status).toBe(404);
    expect((await vault.call('UserGet', { mode: 'token', identity: c.body.token })).body.grouproles).toEqual([]);
  });

  it('refuse an unknown group or role before storing anything, in UserCreate and UserCreateBulk', async ({ vault }) => {
    const profile = buildProfile();
    const res = await vault.call('UserCreate', { profile, groupname: 'nosuchgroup' });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('The group record was not found');
    expect((await vault.call('UserGet', { mode: 'email', identity: profile.email })).status).toBe(404);
    const groupname = unique('g');
    await vault.call('GroupCreate', { groupname });
    expect((await vault.call('UserCreate', { profile, groupname, rolename: 'nosuchrole' })).body.message).toBe('The role record was not found');
    const bulk = await vault.call('UserCreateBulk', { records: [{ profile: buildProfile(), groupname }, { profile: buildProfile(), groupname: 'nosuchgroup' }] });
    expect(bulk.status).toBe(404);
    const ok = await vault.call('UserCreateBulk', { records: [{ profile: buildProfile(), groupname }, { profile: buildProfile() }] });
    expect(ok.status).toBe(200);
    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    expect((await vault.call('BulkListGroupUsers', { unlockuuid, groupname })).body.total).toBe(1);
  });

  it('lose their memberships, not their users, when deleted; a deleted user leaves its groups', async ({ vault }) => {
    const groupname = unique('g');
    await vault.call('GroupCreate', { groupname });
    const u = await vault.call('UserCreate', { profile: buildProfile(), groupname });
    const v = await vault.call('UserCreate', { profile: buildProfile(), groupname });
    expect((await vault.call('UserDelete', { mode: 'token', identity: v.body.token })).status).toBe(200);
    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    expect((await vault.call('BulkListGroupUsers', { unlockuuid, groupname })).body.total).toBe(1);
    expect((await vault.call('GroupDelete', { groupname })).status).toBe(200);
    const still = await vault.call('UserGet', { mode: 'token', identity: u.body.token });
    expect(still.status).toBe(200);
    expect(still.body.grouproles).toEqual([]);
  });
});
