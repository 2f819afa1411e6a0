// What a tenant admin (its token in a Secret the team reads) or a status writer could do by moving vault tenants
// under the operator, run under the chart's default RBAC (the operator's Role in one watched namespace):
// - a tenant renamed away inside a Role pass, and a victim tenant made under the freed name, gets no xtoken (the
//   vault checks the owner mark on XTokenCreateForRole, which a proxy holds back to place both in the window);
// - a Role whose tenant is no longer its Tenant's revokes the xtoken it made and removes its Secret;
// - a tenant admin cannot rename an operator-managed tenant; a rename by the mark is undone, and deletion under
//   Delete removes every tenant carrying the resource's mark;
// - a forged status.adminTokenSecretName is ignored, never read: the pass writes the spec's Secret (also with
//   generated names checked against an oracle);
// - the operator's own Kubernetes rights stop at the watched namespace and its Lease.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, LEASE_NAMESPACE, VERSION, startHarness, until, type Harness } from './harness.js';
import { findCondition } from '../../operator/runtime/conditions.js';

let h: Harness;
let NS: string;
let proxy: Server;
/** Run once, before the next XTokenCreateForRole reaches the vault. */
let beforeXToken: (() => Promise<void>) | undefined;

async function ok(op: string, body: object, as?: { token?: string; tenant?: string }): Promise<Record<string, any>> {
  const answer = await h.call(op, body, as);
  expect(answer.status, `${op}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

/** Forwards every call to the vault, holding an XTokenCreateForRole while `beforeXToken` runs. */
async function startProxy(target: URL): Promise<string> {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hook = req.url?.endsWith('/XTokenCreateForRole') ? beforeXToken : undefined;
      if (hook) beforeXToken = undefined;
      void (hook ?? (async () => undefined))().then(() => {
        const forward = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        });
        forward.end(Buffer.concat(chunks));
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const condition = (plural: 'tenants' | 'roles', name: string) => findCondition(h.get(plural, NS, name)?.status?.conditions, 'Ready');
const reported = (plural: 'tenants' | 'roles', name: string, reason: string) =>
  until(() => (condition(plural, name)?.reason === reason ? condition(plural, name) : undefined), 20_000, `${plural} ${name} to report ${reason}`);
const allowAll = (tenant: string, roleName: string, secretName: string) => ({
  tenantRef: { name: tenant },
  roleName,
  policies: [{ name: 'all', document: { Effect: 'Allow', Action: ['*'], Resource: ['*'] } }],
  xtoken: { secretName, lifetime: '30d' },
});
/** Whether a credential acts in the tenant at all: any that does finds no such person (404). */
const actsIn = async (token: string, tenant: string) => (await h.call('UserGet', { mode: 'login', identity: 'probe' }, { token, tenant })).status === 404;

beforeAll(async () => {
  h = await startHarness();
  NS = h.namespace!;
  const operator = await h.startOperator('operator-renames', { vault: { url: await startProxy(new URL(h.vaultUrl)), rootToken: () => h.rootToken } });
  await until(() => operator.isLeader(), 10_000, 'the operator to lead');
}, 60_000);
afterAll(async () => {
  await h?.stop();
  proxy?.close();
});

describe('a tenant renamed away during a Role pass', () => {
  it('gives the victim tenant made under the freed name no xtoken of the attacker’s role', async () => {
    await h.create('tenants', NS, 'sq', { tenantName: 'delta', organisation: 'Mallory Ltd', adminTokenSecretName: 'sq-admin' });
    const sq = await h.ready('tenants', NS, 'sq');
    const evilAdmin = h.secret(NS, 'sq-admin')!.token!;
    let victimId = 0;
    beforeXToken = async () => {
      // The attacker moves its tenant away whichever way the vault still allows a rename, and the name is taken.
      const renamed = await h.call('TenantUpdate', { tenantname: 'away' }, { token: evilAdmin, tenant: 'delta' });
      if (renamed.status !== 200) await ok('TenantUpdate', { tenantid: sq.status.tenantId, tenantname: 'away', managedby: sq.metadata.uid });
      victimId = (await ok('TenantCreate', { tenantname: 'delta', tenantorg: 'Delta Ltd' })).tenantid;
    };
    await h.create('roles', NS, 'steal', allowAll('sq', 'steal', 'steal-xtoken'));
    const c = await reported('roles', 'steal', 'TenantNotReady');
    expect(c.message).toBe('Tenant sq does not manage vault tenant delta: no xtoken is made for it');
    expect(victimId).toBeGreaterThan(0);
    expect((await ok('XTokenListForRole', { rolename: 'steal' }, { tenant: 'delta' })).total).toBe(0);
    const written = h.secret(NS, 'steal-xtoken')?.xtoken;
    if (written) expect(await actsIn(written, 'delta')).toBe(false);
  });
});

describe('a Role whose tenant is no longer its Tenant’s', () => {
  it('revokes the xtokens it made (the one it replaced too) and removes them from its Secret', async () => {
    await h.create('tenants', NS, 'lose', { tenantName: 'lose', organisation: 'Lose Ltd', adminTokenSecretName: 'lose-admin' });
    const tenant = await h.ready('tenants', NS, 'lose');
    // A short life, so the Secret's token is replaced once while the one it replaced still works.
    await h.create('roles', NS, 'loser', { ...allowAll('lose', 'loser', 'loser-xtoken'), xtoken: { secretName: 'loser-xtoken', lifetime: '12s', rotateBefore: '6s' } });
    await h.ready('roles', NS, 'loser');
    const replaced = h.secret(NS, 'loser-xtoken')!.xtoken!;
    const xtoken = await until(() => (h.secret(NS, 'loser-xtoken')?.xtoken !== replaced ? h.secret(NS, 'loser-xtoken')!.xtoken : undefined), 15_000, 'a rotation');
    for (const each of [replaced, xtoken]) expect(await actsIn(each, 'lose')).toBe(true);
    // The main tenant's admin takes the tenant back from the operator (removes its mark).
    await ok('TenantUpdate', { tenantid: tenant.status.tenantId, managedby: '' });
    await h.patchSpec('roles', NS, 'loser', { description: 'wake up' });
    const c = await reported('roles', 'loser', 'TenantNotReady');
    expect(c.message).toBe('Tenant lose does not manage vault tenant lose: no xtoken is made for it');
    await until(() => h.secret(NS, 'loser-xtoken') === undefined, 10_000, 'the xtoken Secret to go');
    for (const each of [replaced, xtoken]) expect(await actsIn(each, 'lose')).toBe(false);
  });
});

describe('renaming an operator-managed tenant', () => {
  it('is refused to its tenant admin; a rename by the mark is undone; Delete removes every tenant with the mark', async () => {
    await h.create('tenants', NS, 'ren', { tenantName: 'ren', organisation: 'Ren Ltd', adminTokenSecretName: 'ren-admin', deletionPolicy: 'Delete' });
    const ren = await h.ready('tenants', NS, 'ren');
    const uid = ren.metadata.uid;
    const id = ren.status.tenantId as number;
    const admin = h.secret(NS, 'ren-admin')!.token!;
    const refused = await h.call('TenantUpdate', { tenantname: 'renaway' }, { token: admin, tenant: 'ren' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect((await h.call('TenantUpdate', { tenantid: id, tenantname: 'renaway' })).status).toBe(409);
    // Naming the mark, the main tenant's root may rename it: the operator brings the spec's name back, no new tenant.
    await ok('TenantUpdate', { tenantid: id, tenantname: 'renaway', managedby: uid });
    await h.patchSpec('tenants', NS, 'ren', { organisation: 'Ren Group' });
    await h.ready('tenants', NS, 'ren', 2);
    expect(await ok('TenantGet', { tenantid: id })).toMatchObject({ tenantname: 'ren', tenantorg: 'Ren Group', managedby: uid });
    expect(h.secret(NS, 'ren-admin')!.tenantId).toBe(String(id));
    // A tenant made under the same mark by an older operator (which followed renames with new tenants) goes too.
    const leftover = (await ok('TenantCreate', { tenantname: 'renold', tenantorg: 'Ren Ltd', managedby: uid })).tenantid as number;
    const unmarked = (await ok('TenantCreate', { tenantname: 'renother', tenantorg: 'Other' })).tenantid as number;
    expect((await ok('TenantListTenants', { managedby: uid })).rows.map((r: { tenantid: number }) => r.tenantid).sort()).toEqual([id, leftover].sort());
    await h.remove('tenants', NS, 'ren');
    await until(() => h.get('tenants', NS, 'ren') === undefined, 15_000, 'the Tenant to go');
    for (const gone of [id, leftover]) expect((await h.call('TenantGet', { tenantid: gone })).status).toBe(404);
    expect((await h.call('TenantGet', { tenantid: unmarked })).status).toBe(200);
  });
});

describe('a forged status.adminTokenSecretName', () => {
  it('is never read nor deleted: the pass writes the spec’s Secret and the resource is Ready', async () => {
    await h.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'app-db' }, stringData: { password: 'hunter2' } } });
    await h.create('tenants', NS, 'mv', { tenantName: 'mv', organisation: 'Mv Ltd', adminTokenSecretName: 'mv-1' });
    await h.ready('tenants', NS, 'mv');
    const where = { group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'mv' };
    await h.custom.patchNamespacedCustomObjectStatus({ ...where, body: { status: { adminTokenSecretName: 'app-db' } } }, mergePatch);
    await h.patchSpec('tenants', NS, 'mv', { adminTokenSecretName: 'mv-2' });
    const mv = await h.ready('tenants', NS, 'mv', 2);
    expect(mv.status.adminTokenSecretName).toBe('mv-2');
    expect(h.secret(NS, 'app-db')).toEqual({ password: 'hunter2' });
    const token = h.secret(NS, 'mv-2')!.token!;
    expect((await h.call('TenantGet', {}, { token, tenant: 'mv' })).status).toBe(200);
  });
});

describe('generated forged Secret names in a Tenant status', () => {
  it('never read, delete or wedge: whatever name the status holds, only this resource’s Secrets change', async () => {
    // Bystanders: a Secret of no resource, another Tenant's admin Secret, a Role's xtoken Secret.
    await h.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'plain' }, stringData: { password: 'hunter3' } } });
    await h.create('tenants', NS, 'other', { tenantName: 'other', organisation: 'Other Ltd', adminTokenSecretName: 'other-admin' });
    await h.ready('tenants', NS, 'other');
    await h.create('roles', NS, 'bystander', allowAll('other', 'bystander', 'bystander-xtoken'));
    await h.ready('roles', NS, 'bystander');
    const bystanders = ['plain', 'other-admin', 'bystander-xtoken'];
    const before = Object.fromEntries(bystanders.map((name) => [name, h.secret(NS, name)]));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...bystanders, 'nosuch', 'own-previous'), async (forged) => {
        const name = `fg${++n}`;
        await h.create('tenants', NS, name, { tenantName: name, organisation: 'Forged Ltd', adminTokenSecretName: `${name}-a` });
        await h.ready('tenants', NS, name);
        const first = h.secret(NS, `${name}-a`)!.token!;
        const status = { adminTokenSecretName: forged === 'own-previous' ? `${name}-a` : forged };
        await h.custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name, body: { status } }, mergePatch);
        await h.patchSpec('tenants', NS, name, { adminTokenSecretName: `${name}-b` });
        // The oracle: the pass goes on and writes the spec's Secret; a token moves only out of its own Secret.
        const done = await h.ready('tenants', NS, name, 2);
        expect(done.status.adminTokenSecretName).toBe(`${name}-b`);
        const token = h.secret(NS, `${name}-b`)!.token!;
        if (forged === 'own-previous') expect(token).toBe(first);
        expect((await h.call('TenantGet', {}, { token, tenant: name })).status).toBe(200);
        for (const other of bystanders) expect(h.secret(NS, other), other).toEqual(before[other]);
      }),
      { numRuns: 6 },
    );
  }, 90_000);
});

describe('the operator’s own Kubernetes rights (the chart’s default install)', () => {
  it('reach Secrets in the watched namespace only, and never the release namespace’s', async () => {
    await h.core.createNamespacedSecret({ namespace: LEASE_NAMESPACE, body: { metadata: { name: 'strongroom-root-token' }, stringData: { token: 'ROOT' } } });
    await h.core.createNamespacedSecret({ namespace: 'team-other', body: { metadata: { name: 'theirs' }, stringData: { a: 'b' } } });
    await h.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'watched' }, stringData: { a: 'b' } } });
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(h.operatorKubeconfig('operator-probe').path);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const status = (p: Promise<unknown>) => p.then(() => 200, (err: { code?: number }) => err.code);
    expect(await status(core.readNamespacedSecret({ namespace: LEASE_NAMESPACE, name: 'strongroom-root-token' }))).toBe(403);
    expect(await status(core.readNamespacedSecret({ namespace: 'team-other', name: 'theirs' }))).toBe(403);
    expect(await status(custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'tenants' }))).toBe(403);
    expect(await status(core.readNamespacedSecret({ namespace: NS, name: 'watched' }))).toBe(200);
    expect(await status(custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants' }))).toBe(200);
  });
});
