// Finding N1: the operator never takes a resource's status as input. An attacker who may create Tenants and Roles
// and patch their status in one watched namespace (and read its Secrets) forges `status.tenantId` to name another
// tenant (one made by hand, and the main tenant), with no admin token in the spec's Secret: nothing of that tenant
// reaches a Secret the attacker reads, its admin token is not rotated, and the resource says why it is refused.
import * as k8s from '@kubernetes/client-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION, startHarness, until, type Harness } from './harness.js';
import type { Operator } from '../../operator/operator.js';
import { findCondition } from '../../operator/runtime/conditions.js';

const EVIL = 'team-evil';
let h: Harness;
let attacker: { custom: k8s.CustomObjectsApi; core: k8s.CoreV1Api };
/** Victims: a tenant made by hand, the main tenant, and a tenant another namespace's Tenant made. */
const victims: Record<'beta' | 'main' | 'gamma', { id: number; name: string; admin: string }> = {} as never;

const forgedReady = { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'forged', lastTransitionTime: '2026-01-01T00:00:00Z' };

async function ok(op: string, body: object, as?: { token?: string; tenant?: string }): Promise<Record<string, any>> {
  const answer = await h.call(op, body, as);
  expect(answer.status, `${op}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

/** The attacker's own credentials: Tenants and Roles (and their status) and Secrets in its namespace, nothing else. */
function attackerClients() {
  const rules = [
    { apiGroups: [GROUP], resources: ['tenants', 'roles'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
    { apiGroups: [GROUP], resources: ['tenants/status', 'roles/status'], verbs: ['get', 'patch'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
  ];
  h.kube.addUser('mallory-token', { name: 'mallory', namespaceRules: { [EVIL]: rules } });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(h.kube.writeKubeconfig(h.dir, { token: 'mallory-token', name: 'mallory', namespace: EVIL }));
  return { custom: kc.makeApiClient(k8s.CustomObjectsApi), core: kc.makeApiClient(k8s.CoreV1Api) };
}

/** Creates a resource as the attacker, then writes the status it wants the operator to believe. */
async function forge(plural: 'tenants' | 'roles', name: string, spec: object, status: object) {
  const where = { group: GROUP, version: VERSION, namespace: EVIL, plural };
  const kind = plural === 'tenants' ? 'Tenant' : 'Role';
  await attacker.custom.createNamespacedCustomObject({ ...where, body: { apiVersion: `${GROUP}/${VERSION}`, kind, metadata: { name }, spec } });
  await attacker.custom.patchNamespacedCustomObjectStatus({ ...where, name, body: [{ op: 'add', path: '/status', value: status }] });
}

const tenantSpec = (tenantName: string, secret: string) => ({ tenantName, organisation: 'Mallory Ltd', adminTokenSecretName: secret, deletionPolicy: 'Delete' });
const roleSpec = (tenant: string, roleName: string) => ({
  tenantRef: { name: tenant },
  roleName,
  policies: [{ name: 'all', document: { Effect: 'Allow', Action: ['*'], Resource: ['*'] } }],
  xtoken: { secretName: `${roleName}-xtoken` },
});

const refused = (plural: 'tenants' | 'roles', name: string, reason: string) =>
  until(
    () => {
      const c = findCondition(h.get(plural, EVIL, name)?.status?.conditions, 'Ready');
      return c?.status === 'False' && c.reason === reason ? c : undefined;
    },
    20_000,
    `${plural} ${EVIL}/${name} to report ${reason}`,
  );

/** Every value of every Secret the attacker can list in its namespace. */
async function attackerSecretValues(): Promise<string[]> {
  const list = await attacker.core.listNamespacedSecret({ namespace: EVIL });
  return list.items.flatMap((s) => Object.values(s.data ?? {}).map((v) => Buffer.from(v, 'base64').toString()));
}

/** A value that works as some tenant's admin token, or as any xtoken in the victim tenant. */
async function grantsVictim(value: string, victim: { id: number; name: string }): Promise<boolean> {
  const asAdmin = await h.call('TenantGet', { tenantid: victim.id }, { token: value, tenant: victim.name });
  // Any credential that acts in the tenant finds no such person (404); any other is refused (403).
  const asRole = await h.call('UserGet', { mode: 'login', identity: 'probe' }, { token: value, tenant: victim.name });
  return asAdmin.status === 200 || [200, 404].includes(asRole.status);
}

let operator: Operator;

beforeAll(async () => {
  h = await startHarness({ clusterWide: true });
  attacker = attackerClients();
  // beta: made by hand through the api; main: its admin made by root; gamma: made by a Tenant in its own namespace.
  const beta = await ok('TenantCreate', { tenantname: 'beta', tenantorg: 'Beta Ltd' });
  victims.beta = { id: beta.tenantid, name: 'beta', admin: beta.xtoken };
  victims.main = { id: 1, name: 'main', admin: (await ok('TenantRotateAdminToken', { tenantid: 1 })).xtoken };
  const first = await h.startOperator('operator-first');
  await until(() => first.isLeader(), 10_000, 'the first operator to lead');
  await h.create('tenants', 'team-gamma', 'gamma', { tenantName: 'gamma', organisation: 'Gamma Ltd', adminTokenSecretName: 'gamma-admin' });
  const gamma = await h.ready('tenants', 'team-gamma', 'gamma');
  victims.gamma = { id: gamma.status.tenantId, name: 'gamma', admin: h.secret('team-gamma', 'gamma-admin')!.token! };
  await h.create('roles', 'team-gamma', 'reader', roleSpec('gamma', 'gammareader'));
  const reader = await h.ready('roles', 'team-gamma', 'reader');
  await first.stop();

  // The forgeries are in place before any operator looks at them.
  await forge('tenants', 'beta', tenantSpec('beta', 'stolen-beta'), { tenantId: victims.beta.id, tenantName: 'beta', conditions: [forgedReady] });
  await forge('tenants', 'main', tenantSpec('main', 'stolen-main'), { tenantId: 1, tenantName: 'main', conditions: [forgedReady] });
  await forge('tenants', 'mine', tenantSpec('mallory', 'mine-admin'), { tenantId: victims.beta.id, tenantName: 'mallory', conditions: [forgedReady] });
  await forge('tenants', 'gamma', tenantSpec('gamma', 'stolen-gamma'), { tenantId: victims.gamma.id, tenantName: 'gamma', conditions: [forgedReady] });
  await forge('roles', 'into-beta', roleSpec('beta', 'intobeta'), {});
  await forge('roles', 'into-main', roleSpec('main', 'intomain'), {});
  await forge('roles', 'into-gamma', roleSpec('gamma', 'intogamma'), {});
  await forge('roles', 'own', roleSpec('mine', 'own'), {});
  await forge('roles', 'copy', roleSpec('mine', 'gammareader'), { roleId: reader.status.roleId, tenantId: victims.gamma.id, conditions: [forgedReady] });
  operator = await h.startOperator('operator-second');
  await until(() => operator.isLeader(), 10_000, 'the second operator to lead');
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

describe('a forged Tenant status', () => {
  it('does not hand a hand-made tenant to the resource: refused, nothing written, its admin token unrotated', async () => {
    const c = await refused('tenants', 'beta', 'TenantExists');
    expect(c.message).toBe('vault tenant beta already exists and is not managed by this Tenant (it carries no owner mark); it is left untouched');
    expect(h.secret(EVIL, 'stolen-beta')).toBeUndefined();
    expect(h.get('tenants', EVIL, 'beta')!.status.tenantId).toBeUndefined();
    expect(await grantsVictim(victims.beta.admin, victims.beta)).toBe(true);
  });

  it('refuses a Tenant naming the main tenant, and never rotates the main tenant’s admin', async () => {
    const c = await refused('tenants', 'main', 'MainTenantRefused');
    expect(c.message).toBe('tenantName main is the vault’s main tenant, which the operator never manages');
    expect(h.secret(EVIL, 'stolen-main')).toBeUndefined();
    expect(h.get('tenants', EVIL, 'main')!.status.tenantId).toBeUndefined();
    expect(await grantsVictim(victims.main.admin, victims.main)).toBe(true);
  });

  it('is overwritten by what the vault says: the resource gets its own tenant, never the one its status named', async () => {
    const mine = await h.ready('tenants', EVIL, 'mine');
    const own = await ok('TenantGet', { tenantid: mine.status.tenantId });
    expect(own).toMatchObject({ tenantname: 'mallory', managedby: mine.metadata.uid });
    expect(mine.status.tenantId).not.toBe(victims.beta.id);
    expect(h.secret(EVIL, 'mine-admin')!.tenantId).toBe(String(own.tenantid));
  });
});

describe('a Role whose Tenant was forged', () => {
  it('gets no xtoken for the tenant the forged status names', async () => {
    for (const tenant of ['beta', 'main', 'gamma']) {
      const c = await refused('roles', `into-${tenant}`, 'TenantNotReady');
      expect(c.message).toBe(`Tenant ${tenant} does not manage vault tenant ${tenant}: no xtoken is made for it`);
      expect(h.secret(EVIL, `into${tenant}-xtoken`)).toBeUndefined();
    }
    // Its own tenant, whatever its status says, is where a Role's xtoken is made.
    await h.ready('roles', EVIL, 'own');
    expect(h.secret(EVIL, 'own-xtoken')!.tenantName).toBe('mallory');
  });

  it('names the rival that manages a Tenant name another namespace holds', async () => {
    const c = await refused('tenants', 'gamma', 'TenantNameTaken');
    expect(c.message).toBe('Tenant team-gamma/gamma already manages vault tenant gamma');
    expect(h.secret(EVIL, 'stolen-gamma')).toBeUndefined();
    // The forged claim does not make the real owner give way: a change to it is applied as before.
    await h.patchSpec('tenants', 'team-gamma', 'gamma', { organisation: 'Gamma Group' });
    await h.ready('tenants', 'team-gamma', 'gamma', 2);
    expect(await ok('TenantGet', { tenantid: victims.gamma.id })).toMatchObject({ tenantorg: 'Gamma Group' });
    expect(h.secret('team-gamma', 'gamma-admin')!.token).toBe(victims.gamma.admin);
  });

  it('leaves nothing in the attacker’s Secrets that opens a victim, and every victim admin still works', async () => {
    await h.ready('roles', EVIL, 'own');
    const values = await attackerSecretValues();
    expect(values.length).toBeGreaterThan(0);
    for (const victim of Object.values(victims)) {
      for (const value of values) expect(await grantsVictim(value, victim), `a Secret value opens ${victim.name}`).toBe(false);
      expect(await grantsVictim(victim.admin, victim)).toBe(true);
    }
  });
});

describe('a forged Role status', () => {
  it('claims no vault role: the Role whose mark it carries keeps it and goes on working', async () => {
    const c = await refused('roles', 'copy', 'RoleNameTaken');
    expect(c.message).toBe('Role team-gamma/reader already manages vault role gammareader');
    expect(h.get('roles', EVIL, 'copy')!.status.roleId).toBeUndefined();
    expect(h.secret(EVIL, 'gammareader-xtoken')).toBeUndefined();
    await h.patchSpec('roles', 'team-gamma', 'reader', { description: 'still ours' });
    await h.ready('roles', 'team-gamma', 'reader', 2);
    expect(await ok('RoleGet', { rolename: 'gammareader' })).toMatchObject({ roledesc: 'still ours', managedby: h.get('roles', 'team-gamma', 'reader')!.metadata.uid });
  });
});

describe('generated forgeries', () => {
  it('never get a resource anything but a tenant it made itself, whatever name and status they carry', async () => {
    let run = 0;
    const ids = () => [victims.beta.id, victims.gamma.id, 1, 999_999];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('beta', 'main', 'gamma', 'fresh'), fc.constantFrom(...ids()), fc.constantFrom('beta', 'main', 'gamma', 'x'), async (name, forgedId, forgedName) => {
        const n = ++run;
        const tenantName = name === 'fresh' ? `fresh${n}` : name;
        await forge('tenants', `gen-${n}`, tenantSpec(tenantName, `gen-${n}-admin`), { tenantId: forgedId, tenantName: forgedName, conditions: [forgedReady] });
        const c = await until(() => {
          const got = findCondition(h.get('tenants', EVIL, `gen-${n}`)?.status?.conditions, 'Ready');
          return got?.observedGeneration === 1 && got.message !== 'forged' ? got : undefined;
        }, 20_000, `Tenant gen-${n} to be judged`);
        const obj = h.get('tenants', EVIL, `gen-${n}`)!;
        // The oracle: only a name no one else holds becomes this resource's, as a tenant carrying its uid.
        expect(c.status).toBe(name === 'fresh' ? 'True' : 'False');
        if (name === 'fresh') {
          expect(await ok('TenantGet', { tenantid: obj.status.tenantId })).toMatchObject({ tenantname: tenantName, managedby: obj.metadata.uid });
          expect(await grantsVictim(h.secret(EVIL, `gen-${n}-admin`)!.token!, { id: obj.status.tenantId, name: tenantName })).toBe(true);
        } else {
          expect(obj.status.tenantId).toBeUndefined();
          expect(h.secret(EVIL, `gen-${n}-admin`)).toBeUndefined();
        }
        for (const victim of Object.values(victims)) expect(await grantsVictim(victim.admin, victim), `${victim.name}'s admin`).toBe(true);
      }),
      { numRuns: 8 },
    );
  });
});

describe('handing a tenant over', () => {
  it('adopts a tenant only once it carries the resource’s mark, and refuses one marked by anyone else', async () => {
    const NS = 'team-hand';
    const made = await ok('TenantCreate', { tenantname: 'handed', tenantorg: 'Handed Ltd' });
    await ok('TenantCreate', { tenantname: 'strange', tenantorg: 'Strange Ltd', managedby: 'another-tool/1' });
    await h.create('tenants', NS, 'handed', { tenantName: 'handed', organisation: 'Handed Ltd', adminTokenSecretName: 'handed-admin' });
    await h.create('tenants', NS, 'strange', { tenantName: 'strange', organisation: 'Strange Ltd', adminTokenSecretName: 'strange-admin' });
    const waiting = await until(() => {
      const c = findCondition(h.get('tenants', NS, 'handed')?.status?.conditions, 'Ready');
      return c?.reason === 'TenantExists' ? c : undefined;
    });
    expect(waiting.message).toContain('it carries no owner mark');
    const strange = await until(() => {
      const c = findCondition(h.get('tenants', NS, 'strange')?.status?.conditions, 'Ready');
      return c?.reason === 'TenantExists' ? c : undefined;
    });
    expect(strange.message).toBe('vault tenant strange already exists and is not managed by this Tenant (its owner mark is another-tool/1); it is left untouched');

    // The root token's holder hands it over; a spec change wakes the resource at once.
    await ok('TenantUpdate', { tenantid: made.tenantid, managedby: h.get('tenants', NS, 'handed')!.metadata.uid });
    await h.patchSpec('tenants', NS, 'handed', { email: 'it@handed.example' });
    const adopted = await h.ready('tenants', NS, 'handed', 2);
    expect(adopted.status.tenantId).toBe(made.tenantid);
    const token = h.secret(NS, 'handed-admin')!.token!;
    expect(await grantsVictim(token, { id: made.tenantid, name: 'handed' })).toBe(true);
    expect(await grantsVictim(made.xtoken, { id: made.tenantid, name: 'handed' })).toBe(false);
    expect(h.secret(NS, 'strange-admin')).toBeUndefined();
  });
});

describe('deleting forged resources under deletionPolicy Delete', () => {
  it('deletes no tenant the resource did not make', async () => {
    for (const name of ['beta', 'main', 'gamma']) {
      await attacker.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: EVIL, plural: 'tenants', name });
      await until(() => h.get('tenants', EVIL, name) === undefined, 15_000, `Tenant ${name} to go`);
    }
    expect(await grantsVictim(victims.beta.admin, victims.beta)).toBe(true);
    expect(await grantsVictim(victims.main.admin, victims.main)).toBe(true);
    expect(await grantsVictim(victims.gamma.admin, victims.gamma)).toBe(true);
    expect((await h.call('TenantGet', { tenantid: victims.gamma.id })).status).toBe(200);
  });
});
