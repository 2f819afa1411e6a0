// The operator changes only vault roles and policies that carry its resource's owner mark (`managedby`, the
// resource's uid): a role or policy of the same name made by anyone else, marked or not, is reported and left as it
// is, and deletion under deletionPolicy Delete removes only what the resource made. One vault for the whole file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WATCHED_NAMESPACE, startHarness, until, type Harness } from './harness.js';
import { findCondition } from '../../operator/runtime/conditions.js';

/** The chart's default install: the operator's Role in this one namespace. */
const NS = WATCHED_NAMESPACE;
const names = { Effect: 'Allow', Action: ['UserGet'], Resource: ['users.profile.name'] };
let h: Harness;
/** A person in the main tenant that the other team's xtokens read. */
let person: { mode: string; identity: string };

beforeAll(async () => {
  h = await startHarness();
  const operator = await h.startOperator('operator-own');
  await until(() => operator.isLeader(), 10_000, 'the operator to lead');
  await h.create('tenants', NS, 'owners', { tenantName: 'owners', organisation: 'Owners Ltd', adminTokenSecretName: 'owners-admin' });
  await h.ready('tenants', NS, 'owners');
  const user = await h.call('UserCreate', { profile: { login: 'grace', name: 'Grace', email: 'grace@example.com' } });
  expect(user.status).toBe(200);
  person = { mode: 'login', identity: 'grace' };
});
afterAll(async () => {
  await h?.stop();
});

function roleSpec(roleName: string, extra: object = {}) {
  return {
    tenantRef: { name: 'owners' },
    roleName,
    description: 'managed by the operator',
    policies: [
      { name: 'read', description: 'names', document: names },
      { name: 'create', document: { Effect: 'Allow', Action: ['UserCreate'] } },
    ],
    xtoken: { secretName: `${roleName}-xtoken` },
    deletionPolicy: 'Delete',
    ...extra,
  };
}

async function ok(op: string, body: object, as?: { token?: string; tenant?: string }): Promise<Record<string, any>> {
  const answer = await h.call(op, body, as);
  expect(answer.status, `${op}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

/** Another team's role, made through the api: a linked policy and a working xtoken (main tenant). */
async function othersRole(rolename: string, managedby?: string) {
  const { roleid } = await ok('RoleCreate', { rolename, roledesc: 'the other team', ...(managedby && { managedby }) });
  const { policyid } = await ok('PolicyCreate', { policyname: `${rolename}-theirs`, policy: names, ...(managedby && { managedby }) });
  await ok('RoleLinkPolicy', { roleid, policyid });
  const { xtoken } = await ok('XTokenCreateForRole', { roleid, finaltime: '1h' });
  const role = await ok('RoleGet', { rolename });
  expect((await h.call('UserGet', person, { token: xtoken })).body.profile).toMatchObject({ name: 'Grace', email: '***' });
  return { role, xtoken };
}

const readyCondition = (name: string) => findCondition(h.get('roles', NS, name)?.status?.conditions, 'Ready');
const refusedWith = (name: string, reason: string) =>
  until(() => {
    const c = readyCondition(name);
    return c?.status === 'False' && c.reason === reason ? c : undefined;
  }, 15_000, `Role ${name} to report ${reason}`);

function events(name: string): { type: string; reason: string; message: string }[] {
  return h.kube.store.list(h.kube.type('events'), NS, { matches: () => true }).filter((e) => e.involvedObject.name === name) as any[];
}

/** The Event is recorded just after the status is written. */
const warned = (name: string, reason: string) =>
  until(() => events(name).find((e) => e.type === 'Warning' && e.reason === reason), 5000, `a ${reason} Warning for ${name}`);

async function removed(name: string) {
  await h.remove('roles', NS, name);
  await until(() => h.get('roles', NS, name) === undefined, 10_000, `Role ${name} to go`);
}

/** What must still hold for the other team: its role as it was (description, mark, links) and its xtoken working. */
async function untouched(before: { role: Record<string, any>; xtoken: string }) {
  expect(await ok('RoleGet', { rolename: before.role.rolename })).toEqual(before.role);
  expect((await h.call('UserGet', person, { token: before.xtoken })).body.profile).toMatchObject({ name: 'Grace', email: '***' });
  for (const p of ['read', 'create']) expect((await h.call('PolicyGet', { policyname: `${before.role.rolename}.${p}` })).status).toBe(404);
}

describe('a role name taken in the vault', () => {
  it('is reported RoleNameTaken when the role has no owner mark, and neither adopted nor deleted', async () => {
    const theirs = await othersRole('billing');
    await h.create('roles', NS, 'billing', roleSpec('billing'));
    const refused = await refusedWith('billing', 'RoleNameTaken');
    expect(refused.message).toBe('vault role billing already exists and is not managed by this Role (it carries no owner mark); it is left untouched');
    expect((await warned('billing', 'RoleNameTaken')).message).toBe(refused.message);
    expect(h.get('roles', NS, 'billing')!.status.roleId).toBeUndefined();
    expect(h.secret(NS, 'billing-xtoken')).toBeUndefined();
    await untouched(theirs);

    // deletionPolicy Delete deletes nothing it does not own: the role, its links and its xtoken stay.
    await removed('billing');
    await untouched(theirs);
  });

  it('is reported RoleNameTaken when the role carries another owner mark, and neither adopted nor deleted', async () => {
    const theirs = await othersRole('payroll', 'another-operator/uid-1234');
    await h.create('roles', NS, 'payroll', roleSpec('payroll'));
    const refused = await refusedWith('payroll', 'RoleNameTaken');
    await warned('payroll', 'RoleNameTaken');
    expect(refused.message).toContain('vault role payroll already exists and is not managed by this Role (its owner mark is another-operator/uid-1234)');
    // It stays refused on later passes: a spec change wakes it and still writes nothing.
    await h.patchSpec('roles', NS, 'payroll', { description: 'trying again' });
    await until(() => readyCondition('payroll')?.observedGeneration === 2 && readyCondition('payroll')?.reason === 'RoleNameTaken', 15_000, 'the second refusal');
    await untouched(theirs);
    await removed('payroll');
    await untouched(theirs);
  });

  it('adopts a role that carries its own mark, bringing the description and links in line with the spec', async () => {
    // The Tenant does not exist yet, so the Role waits, and its uid is known before the vault role is made.
    await h.create('roles', NS, 'ledger', roleSpec('ledger', { tenantRef: { name: 'later' } }));
    await until(() => readyCondition('ledger')?.reason === 'TenantNotReady', 15_000, 'the Role to wait');
    const uid = h.get('roles', NS, 'ledger')!.metadata.uid as string;
    const { roleid } = await ok('RoleCreate', { rolename: 'ledger', roledesc: 'made before its resource', managedby: uid });
    await h.create('tenants', NS, 'later', { tenantName: 'later', organisation: 'Later Ltd', adminTokenSecretName: 'later-admin' });
    await h.ready('tenants', NS, 'later');
    const role = await h.ready('roles', NS, 'ledger');
    expect(role.status.roleId).toBe(roleid);
    const read = await ok('RoleGet', { rolename: 'ledger' });
    expect(read).toMatchObject({ roleid, roledesc: 'managed by the operator', managedby: uid });
    expect(read.policies.map((p: { policyname: string }) => p.policyname).sort()).toEqual(['ledger.create', 'ledger.read']);
    expect((await ok('PolicyGet', { policyname: 'ledger.read' })).managedby).toBe(uid);
    await removed('ledger');
    expect((await h.call('RoleGet', { rolename: 'ledger' })).status).toBe(404);
  });
});

describe('a policy name taken in the vault', () => {
  it('is reported PolicyNameTaken; the policy is neither changed nor linked, and deletion leaves it', async () => {
    const theirs = await ok('PolicyCreate', { policyname: 'audit.read', policydesc: 'the other team', policy: { Effect: 'Deny', Action: ['UserGet'] } });
    const before = await ok('PolicyGet', { policyname: 'audit.read' });
    await h.create('roles', NS, 'audit', roleSpec('audit'));
    const refused = await refusedWith('audit', 'PolicyNameTaken');
    expect(refused.message).toBe('vault policy audit.read already exists and is not managed by this Role (it carries no owner mark); it is left untouched');
    expect((await warned('audit', 'PolicyNameTaken')).message).toBe(refused.message);
    // The role itself was free, so it is this resource's; nothing else was written.
    const uid = h.get('roles', NS, 'audit')!.metadata.uid as string;
    expect(await ok('RoleGet', { rolename: 'audit' })).toMatchObject({ managedby: uid, policies: [] });
    expect((await h.call('PolicyGet', { policyname: 'audit.create' })).status).toBe(404);
    expect(await ok('PolicyGet', { policyname: 'audit.read' })).toEqual(before);

    await removed('audit');
    expect((await h.call('RoleGet', { rolename: 'audit' })).status).toBe(404);
    expect(await ok('PolicyGet', { policyid: theirs.policyid })).toEqual(before);
  });
});

describe('a role the operator made', () => {
  it('retires and deletes only its own policies: others named after the role stay, with their links', async () => {
    await h.create('roles', NS, 'ops', roleSpec('ops'));
    const made = await h.ready('roles', NS, 'ops');
    const roleid = made.status.roleId as number;
    // Someone adds policies named like the operator's: one unmarked and linked to the role, one with another mark.
    const extra = await ok('PolicyCreate', { policyname: 'ops.extra', policy: names });
    await ok('RoleLinkPolicy', { roleid, policyid: extra.policyid });
    const legacy = await ok('PolicyCreate', { policyname: 'ops.legacy', policy: names, managedby: 'someone-else' });

    // Dropping "create" from the spec deletes ops.create only.
    const spec = roleSpec('ops');
    await h.patchSpec('roles', NS, 'ops', { policies: spec.policies.slice(0, 1) });
    await h.ready('roles', NS, 'ops', 2);
    expect((await h.call('PolicyGet', { policyname: 'ops.create' })).status).toBe(404);
    expect((await h.call('PolicyGet', { policyname: 'ops.extra' })).status).toBe(200);
    expect((await h.call('PolicyGet', { policyname: 'ops.legacy' })).status).toBe(200);
    expect(events('ops').filter((e) => e.reason === 'PolicyDeleted').map((e) => e.message)).toEqual(['vault policy ops.create left the spec: deleted']);
    const linked = (await ok('RoleGet', { rolename: 'ops' })).policies.map((p: { policyname: string }) => p.policyname);
    expect(linked.sort()).toEqual(['ops.extra', 'ops.read']);

    // Deletion under Delete: the role and ops.read go (with the role its xtoken); the others' policies stay.
    const xtoken = h.secret(NS, 'ops-xtoken')!.xtoken!;
    expect((await h.call('UserGet', person, { token: xtoken, tenant: 'owners' })).status).toBe(404);
    await removed('ops');
    expect((await h.call('RoleGet', { rolename: 'ops' })).status).toBe(404);
    expect((await h.call('PolicyGet', { policyname: 'ops.read' })).status).toBe(404);
    expect(await ok('PolicyGet', { policyname: 'ops.extra' })).toMatchObject({ policyid: extra.policyid, policy: names });
    expect(await ok('PolicyGet', { policyname: 'ops.legacy' })).toMatchObject({ policyid: legacy.policyid, managedby: 'someone-else' });
    expect((await h.call('UserGet', person, { token: xtoken, tenant: 'owners' })).body).toEqual({ status: 'error', message: 'Access denied' });
    expect(events('ops').map((e) => e.reason)).toContain('RoleDeleted');
  });
});
