// The operator end to end: Tenant and Role resources on the Kubernetes API double become tenants, roles, policies
// and xtokens in a real Strongroom, with working tokens in Secrets, under the RBAC the chart grants; and two
// operators sharing one Lease. One vault for the whole file: starting one costs seconds.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../fixtures/processes.js';
import { GROUP, LEASE_NAME, LEASE_NAMESPACE, startHarness, until, type Harness } from './harness.js';
import type { Operator } from '../../operator/operator.js';
import { findCondition } from '../../operator/runtime/conditions.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let h: Harness;
let operator: Operator;
let b: ChildProcess | undefined;
let bOutput = '';

beforeAll(async () => {
  h = await startHarness({ clusterWide: true });
  operator = await h.startOperator('operator-a');
  await until(() => operator.isLeader(), 10_000, 'operator-a to lead');
});
afterAll(async () => {
  if (b && b.exitCode === null) b.kill('SIGKILL');
  await h?.stop();
});

const tenantSpec = (name: string, extra: object = {}) => ({ tenantName: name, organisation: `${name} Ltd`, email: `it@${name}.example`, adminTokenSecretName: `${name}-admin`, ...extra });

const readPolicy = { Effect: 'Allow', Action: ['UserGet'], Resource: ['users.profile.name'] };
const createPolicy = { Effect: 'Allow', Action: ['UserCreate'] };

function roleSpec(tenant: string, roleName: string, extra: object = {}) {
  return {
    tenantRef: { name: tenant },
    roleName,
    description: 'reads names',
    policies: [
      { name: 'read', description: 'names only', document: readPolicy },
      { name: 'create', document: createPolicy },
    ],
    xtoken: { secretName: `${roleName}-xtoken`, lifetime: '1h', rotateBefore: '10min' },
    ...extra,
  };
}

function eventsFor(namespace: string, name: string): string[] {
  return h.kube.store
    .list(h.kube.type('events'), namespace, { matches: () => true })
    .filter((e) => e.involvedObject.name === name)
    .map((e) => e.reason as string);
}

describe('the operator', () => {
  it('turns a Tenant and a Role into a vault tenant, role and policies, with working tokens in owned Secrets', async () => {
    await h.create('tenants', 'team-a', 'acme', tenantSpec('acme', { deletionPolicy: 'Delete' }));
    const tenant = await h.ready('tenants', 'team-a', 'acme');
    expect(tenant.metadata.finalizers).toEqual(['strongroom.dev/cleanup']);
    expect(tenant.status).toMatchObject({ observedGeneration: 1, tenantName: 'acme', adminTokenSecretName: 'acme-admin' });
    const tenantId = tenant.status.tenantId as number;
    expect(tenantId).toBeGreaterThan(1);

    const admin = h.secret('team-a', 'acme-admin')!;
    expect(admin).toMatchObject({ tenantName: 'acme', tenantId: String(tenantId), url: h.vaultUrl });
    const adminSecret = h.kube.get('secrets', 'team-a', 'acme-admin')!;
    expect(adminSecret.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Tenant', name: 'acme', uid: tenant.metadata.uid, controller: true })]);
    // The admin token really is acme's: it creates a user there, and it is refused in the main tenant.
    const user = await h.call('UserCreate', { profile: { login: 'ada', name: 'Ada', email: 'ada@acme.example' } }, { token: admin.token });
    expect(user.status).toBe(200);
    expect((await h.call('TenantGet', {}, { token: admin.token })).body).toMatchObject({ tenantid: tenantId, tenantname: 'acme', tenantorg: 'acme Ltd' });
    expect((await h.call('UserGet', { mode: 'login', identity: 'ada' }, { token: admin.token, tenant: 'main' })).status).toBe(403);

    await h.create('roles', 'team-a', 'reader', roleSpec('acme', 'reader', { deletionPolicy: 'Delete' }));
    const role = await h.ready('roles', 'team-a', 'reader');
    const x = h.secret('team-a', 'reader-xtoken')!;
    expect(x).toMatchObject({ roleName: 'reader', tenantName: 'acme', tenantId: String(tenantId) });
    expect(role.status).toMatchObject({ tenantId, xtoken: { secretName: 'reader-xtoken', expiresAt: x.expiresAt } });
    expect(role.status.policies.map((p: { name: string }) => p.name)).toEqual(['read', 'create']);
    expect(Number(x.expires) - Date.now() / 1000).toBeGreaterThan(3500);

    // The xtoken acts as the role in acme: names only, other text masked; what no policy allows is refused.
    const got = await h.call('UserGet', { mode: 'login', identity: 'ada' }, { token: x.xtoken });
    expect(got.status).toBe(200);
    expect(got.body.profile).toMatchObject({ name: 'Ada', email: '***' });
    expect((await h.call('UserDelete', { mode: 'login', identity: 'ada' }, { token: x.xtoken })).body.message).toBe('API access denied');
    const stored = await h.call('PolicyGet', { policyname: 'reader.read' });
    expect(stored.body).toMatchObject({ policydesc: 'names only', policy: readPolicy });

    expect(eventsFor('team-a', 'acme')).toEqual(expect.arrayContaining(['TenantCreated', 'SecretWritten', 'Reconciled']));
    expect(eventsFor('team-a', 'reader')).toEqual(expect.arrayContaining(['RoleCreated', 'PolicyCreated', 'XTokenIssued']));
    const metrics = await operator.registry.metrics();
    expect(metrics).toMatch(/strongroom_operator_reconcile_total\{kind="Tenant",result="success"\} [1-9]/);
    expect(metrics).toMatch(/strongroom_operator_reconcile_duration_seconds_count\{kind="Role"\} [1-9]/);
    expect(metrics).toMatch(/strongroom_operator_queue_depth\{kind="Tenant"\} \d/);
  });

  it('gives a tenant whose admin Secret was lost a new admin token, and the lost one stops working', async () => {
    const lost = h.secret('team-a', 'acme-admin')!.token;
    h.kube.store.delete(h.kube.type('secrets'), 'team-a', 'acme-admin');
    // A spec change wakes the reconcile at once (the periodic resync would, later).
    const before = h.get('tenants', 'team-a', 'acme')!;
    await h.patchSpec('tenants', 'team-a', 'acme', { ...before.spec, email: 'security@acme.example' });
    await h.ready('tenants', 'team-a', 'acme', before.metadata.generation + 1);
    const fresh = h.secret('team-a', 'acme-admin')!.token;
    expect(fresh).not.toBe(lost);
    expect((await h.call('TenantGet', {}, { token: fresh })).body).toMatchObject({ tenantname: 'acme', email: 'security@acme.example' });
    expect((await h.call('TenantGet', {}, { token: lost })).status).toBe(403);
    expect(eventsFor('team-a', 'acme')).toContain('AdminTokenRotated');
  });

  it('applies a changed policy in the vault and deletes a removed one', async () => {
    const spec = roleSpec('acme', 'reader', { deletionPolicy: 'Delete' });
    const token = h.secret('team-a', 'reader-xtoken')!.xtoken;
    // Now the role reads emails instead of names, and may no longer create users.
    const emailPolicy = { Effect: 'Allow', Action: ['UserGet'], Resource: ['users.profile.email'] };
    const changed = await h.patchSpec('roles', 'team-a', 'reader', { ...spec, policies: [{ name: 'read', description: 'emails only', document: emailPolicy }] });
    expect(changed.metadata.generation).toBe(2);
    await h.ready('roles', 'team-a', 'reader', 2);
    expect((await h.call('PolicyGet', { policyname: 'reader.read' })).body).toMatchObject({ policydesc: 'emails only', policy: emailPolicy });
    expect((await h.call('PolicyGet', { policyname: 'reader.create' })).status).toBe(404);
    const got = await h.call('UserGet', { mode: 'login', identity: 'ada' }, { token });
    expect(got.body.profile).toMatchObject({ name: '***', email: 'ada@acme.example' });
    expect((await h.call('UserCreate', { profile: { login: 'bob' } }, { token })).status).toBe(403);
    expect(eventsFor('team-a', 'reader')).toEqual(expect.arrayContaining(['PolicyUpdated', 'PolicyDeleted']));
    // The same token: a spec change does not replace a live xtoken.
    expect(h.secret('team-a', 'reader-xtoken')!.xtoken).toBe(token);
  });

  it('passes spec.kek to the vault: under static custody it refuses it, reported as InvalidSpec naming kek', async () => {
    await h.create('tenants', 'team-a', 'vaulted', tenantSpec('vaulted', { kek: 'vaulted-kek' }));
    const failed = await until(() => {
      const c = findCondition(h.get('tenants', 'team-a', 'vaulted')?.status?.conditions, 'Ready');
      return c?.status === 'False' && c.reason === 'InvalidSpec' ? c : undefined;
    });
    expect(failed.message).toContain('kek: per-tenant key-encryption keys need the tokenizer\'s pkcs11 custody');
    // Nothing was left behind in the vault: the refused TenantCreate made no tenant.
    expect((await h.call('TenantGet', { tenantname: 'vaulted' })).status).toBe(404);
    await h.patchSpec('tenants', 'team-a', 'vaulted', { kek: null });
    await h.ready('tenants', 'team-a', 'vaulted', 2);
  });

  it('reports a policy the vault refuses as InvalidSpec and recovers when it is fixed', async () => {
    await h.create('roles', 'team-a', 'broken', roleSpec('acme', 'broken', { policies: [{ name: 'bad', document: { Effect: 'Perhaps', Action: 'UserGet' } }] }));
    const failed = await until(() => {
      const o = h.get('roles', 'team-a', 'broken');
      const c = findCondition(o?.status?.conditions, 'Ready');
      return c?.status === 'False' && c.reason === 'InvalidSpec' ? c : undefined;
    });
    expect(failed.message).toContain('Effect');
    expect(h.secret('team-a', 'broken-xtoken')).toBeUndefined();
    await h.patchSpec('roles', 'team-a', 'broken', { policies: [{ name: 'bad', document: readPolicy }] });
    await h.ready('roles', 'team-a', 'broken', 2);
    expect(h.secret('team-a', 'broken-xtoken')!.xtoken).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('waits for the Tenant a Role refers to, and goes on when it is ready', async () => {
    await h.create('roles', 'team-b', 'early', roleSpec('late', 'early'));
    await until(() => findCondition(h.get('roles', 'team-b', 'early')?.status?.conditions, 'Ready')?.reason === 'TenantNotReady');
    await h.create('tenants', 'team-b', 'late', tenantSpec('late'));
    await h.ready('tenants', 'team-b', 'late');
    // The Tenant's change wakes the Role at once, long before its 30 s retry.
    await h.ready('roles', 'team-b', 'early');
  });

  it('lets one resource own a vault name: a second Tenant naming it waits, and deleting that one deletes nothing', async () => {
    await h.create('tenants', 'team-d', 'copycat', tenantSpec('late', { adminTokenSecretName: 'copycat-admin', deletionPolicy: 'Delete' }));
    const refused = await until(() => {
      const c = findCondition(h.get('tenants', 'team-d', 'copycat')?.status?.conditions, 'Ready');
      return c?.reason === 'TenantNameTaken' ? c : undefined;
    });
    expect(refused.message).toBe('Tenant team-b/late already manages vault tenant late');
    expect(h.secret('team-d', 'copycat-admin')).toBeUndefined();
    await h.remove('tenants', 'team-d', 'copycat');
    await until(() => h.get('tenants', 'team-d', 'copycat') === undefined, 10_000, 'the copycat to go');
    const owner = h.get('tenants', 'team-b', 'late')!;
    expect((await h.call('TenantGet', { tenantid: owner.status.tenantId })).body.tenantname).toBe('late');
    expect((await h.call('TenantGet', {}, { token: h.secret('team-b', 'late-admin')!.token })).status).toBe(200);
  });

  it('rotates a role xtoken before it expires, and the new one works', async () => {
    await h.create('roles', 'team-b', 'short', roleSpec('late', 'short', { xtoken: { secretName: 'short-xtoken', lifetime: '6s', rotateBefore: '3s' } }));
    await h.ready('roles', 'team-b', 'short');
    const first = h.secret('team-b', 'short-xtoken')!;
    expect(Number(first.expires) - Number(first.issued)).toBeLessThanOrEqual(6);
    const second = await until(() => {
      const s = h.secret('team-b', 'short-xtoken');
      return s && s.xtoken !== first.xtoken ? s : undefined;
    }, 10_000, 'a rotated xtoken');
    // Rotated ahead of expiry: the old token still works until then, so readers of the Secret see no gap.
    expect(Date.now() / 1000).toBeLessThan(Number(first.expires));
    expect(Number(second.expires)).toBeGreaterThan(Number(first.expires));
    for (const token of [first.xtoken!, second.xtoken!]) {
      expect((await h.call('UserCreate', { profile: { login: `u${token.slice(0, 8)}` } }, { token })).status).toBe(200);
    }
    await until(() => h.get('roles', 'team-b', 'short')?.status?.xtoken?.expiresAt === second.expiresAt);
    expect(eventsFor('team-b', 'short')).toContain('XTokenRotated');
    expect(await operator.registry.metrics()).toMatch(/strongroom_operator_xtokens_issued_total\{reason="rotation"\} [1-9]/);
    await h.remove('roles', 'team-b', 'short');
  });

  it('reads lifetimes in the vault\'s grammar: min is minutes, m a month the vault caps and says so', async () => {
    await h.create('roles', 'team-b', 'minutes', roleSpec('late', 'minutes', { xtoken: { secretName: 'minutes-xtoken', lifetime: '30min' } }));
    await h.ready('roles', 'team-b', 'minutes');
    const minutes = h.secret('team-b', 'minutes-xtoken')!;
    expect(Number(minutes.expires) - Number(minutes.issued)).toBeGreaterThan(1790);
    expect(Number(minutes.expires) - Number(minutes.issued)).toBeLessThanOrEqual(1800);
    expect(eventsFor('team-b', 'minutes')).not.toContain('XTokenLifetimeCapped');
    // `30m` once meant minutes here; it is now the API's 30 months, which the vault holds to its 24-hour cap.
    await h.create('roles', 'team-b', 'months', roleSpec('late', 'months', { xtoken: { secretName: 'months-xtoken', lifetime: '30m' } }));
    await h.ready('roles', 'team-b', 'months');
    const months = h.secret('team-b', 'months-xtoken')!;
    expect(Number(months.expires) - Number(months.issued)).toBeGreaterThan(86_390);
    expect(Number(months.expires) - Number(months.issued)).toBeLessThanOrEqual(86_400);
    expect(eventsFor('team-b', 'months')).toContain('XTokenLifetimeCapped');
    await h.remove('roles', 'team-b', 'minutes');
    await h.remove('roles', 'team-b', 'months');
  });

  it('resumes after its watch streams are cut or its resourceVersion is compacted away', async () => {
    const watching = () => h.kube.openWatches().filter((w) => w.user.includes('operator-a') && w.attributes.group === GROUP);
    await until(() => watching().length === 2, 5000, 'two watches');
    // Cut: client-node's informer stops on the error; the operator starts it again from its resourceVersion.
    const lastRv = watching().map((w) => w.query.resourceVersion);
    expect(h.kube.killWatches('destroy', (w) => watching().includes(w))).toBe(2);
    await h.create('tenants', 'team-c', 'after-cut', tenantSpec('aftercut'));
    await h.ready('tenants', 'team-c', 'after-cut');
    expect(await operator.registry.metrics()).toMatch(/strongroom_operator_informer_restarts_total\{resource="tenants.strongroom.dev"\} [1-9]/);
    const resumed = h.kube.requests.filter((r) => r.user.includes('operator-a') && r.verb === 'watch' && r.resource === 'tenants').at(-1)!;
    expect(Number(resumed.query.resourceVersion)).toBeGreaterThanOrEqual(Number(lastRv[0]));

    // Ended cleanly while history is compacted: the watch gets 410 Expired, the operator lists again.
    const lists = () => h.kube.requests.filter((r) => r.user.includes('operator-a') && r.verb === 'list' && r.resource === 'tenants').length;
    const before = lists();
    await until(() => watching().length === 2, 5000, 'two watches again');
    const down = h.kube.holdWatches((a) => a.resource === 'tenants' && a.verb === 'watch');
    h.kube.killWatches('end', (w) => watching().includes(w) && w.attributes.resource === 'tenants');
    await until(() => down.waiting() === 1, 5000, 'the operator to watch again');
    await h.create('tenants', 'team-c', 'after-gone', tenantSpec('aftergone'));
    h.kube.compact();
    down.release();
    await h.ready('tenants', 'team-c', 'after-gone');
    expect(lists()).toBe(before + 1);
  });

  it('under deletionPolicy Retain keeps the vault tenant; under Delete removes it, and deletes a Role', async () => {
    await h.remove('tenants', 'team-c', 'after-cut');
    await until(() => h.get('tenants', 'team-c', 'after-cut') === undefined, 10_000, 'the Retain tenant to go');
    const kept = await h.call('TenantListTenants', { limit: 100 });
    expect(kept.body.rows.map((r: { tenantname: string }) => r.tenantname)).toContain('aftercut');
    await until(() => h.kube.get('secrets', 'team-c', 'after-cut-admin') === undefined, 5000, 'the owned Secret to be collected');
    expect(eventsFor('team-c', 'after-cut')).toContain('TenantRetained');

    // Role under Delete: the vault role and its policies go, and with the role its xtoken.
    const roleToken = h.secret('team-a', 'reader-xtoken')!.xtoken;
    expect((await h.call('UserGet', { mode: 'login', identity: 'ada' }, { token: roleToken })).status).toBe(200);
    await h.remove('roles', 'team-a', 'reader');
    await until(() => h.get('roles', 'team-a', 'reader') === undefined, 10_000, 'the Role to go');
    expect((await h.call('UserGet', { mode: 'login', identity: 'ada' }, { token: roleToken })).body).toEqual({ status: 'error', message: 'Access denied' });
    expect((await h.call('PolicyGet', { policyname: 'reader.read' })).status).toBe(404);
    expect((await h.call('RoleDelete', { rolename: 'reader' })).status).toBe(404);

    const tenantId = h.get('tenants', 'team-a', 'acme')!.status.tenantId;
    const adminToken = h.secret('team-a', 'acme-admin')!.token;
    await h.remove('tenants', 'team-a', 'acme');
    // The finalizer holds the resource until the vault tenant is gone.
    await until(() => h.get('tenants', 'team-a', 'acme') === undefined, 10_000, 'the Delete tenant to go');
    expect((await h.call('TenantGet', { tenantid: tenantId })).status).toBe(404);
    expect((await h.call('UserGet', { mode: 'login', identity: 'ada' }, { token: adminToken })).status).toBe(403);
  });
});

const writes = (user: string) => h.kube.requests.filter((r) => r.user === user && ['create', 'update', 'patch', 'delete'].includes(r.verb) && r.resource !== 'leases');
const holder = () => h.kube.get('leases', LEASE_NAMESPACE, LEASE_NAME)?.spec?.holderIdentity as string | undefined;

// Last: it stops operator-a. The second operator is `operator/main.ts` as a process, configured the way
// `npm run operator` is (KUBECONFIG, STRONGROOM_URL, a root token file, WATCH_NAMESPACE).
describe('leader election', () => {
  it('lets only the Lease holder reconcile, hands over when it steps down, and stops cleanly on SIGTERM', async () => {
    const kubeconfig = h.operatorKubeconfig('operator-b');
    const tokenFile = join(h.dir, 'root-token');
    writeFileSync(tokenFile, `${h.rootToken}\n`, { mode: 0o600 });
    const port = await freePort();
    b = spawn(process.execPath, ['--import', 'tsx', 'operator/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        KUBECONFIG: kubeconfig.path,
        STRONGROOM_URL: h.vaultUrl,
        STRONGROOM_ROOT_TOKEN: undefined,
        STRONGROOM_ROOT_TOKEN_FILE: tokenFile,
        WATCH_NAMESPACE: 'team-x',
        POD_NAME: 'operator-b',
        STRONGROOM_OPERATOR_LEASE_NAME: LEASE_NAME,
        STRONGROOM_OPERATOR_LEASE_SECONDS: '10',
        STRONGROOM_OPERATOR_RENEW_DEADLINE_SECONDS: '5',
        STRONGROOM_OPERATOR_RETRY_PERIOD_SECONDS: '0.2',
        STRONGROOM_OPERATOR_PORT: String(port),
        STRONGROOM_OPERATOR_HOST: '127.0.0.1',
        STRONGROOM_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    b.stdout!.on('data', (d: Buffer) => (bOutput += d.toString()));
    b.stderr!.on('data', (d: Buffer) => (bOutput += d.toString()));
    const probe = (path: string) => fetch(`http://127.0.0.1:${port}${path}`).then(async (r) => ({ status: r.status, text: await r.text() }), () => undefined);

    // B is up, ready as a standby, and not leading: the Lease namespace comes from its kubeconfig context.
    await until(async () => (await probe('/healthz'))?.status === 200, 30_000, `operator-b to serve /healthz; output:\n${bOutput}`);
    expect(JSON.parse((await probe('/readyz'))!.text)).toEqual({ status: 'ok', leader: false });
    expect((await probe('/metrics'))!.text).toMatch(/^strongroom_operator_leader 0$/m);
    expect(bOutput).toMatch(/"msg":"operator started"/);

    await h.create('tenants', 'team-x', 'first', tenantSpec('first'));
    await h.ready('tenants', 'team-x', 'first');
    expect(holder()).toBe('operator-a');
    expect(writes(kubeconfig.user)).toEqual([]);
    expect(writes('system:serviceaccount:strongroom-system:operator-a').some((r) => r.subresource === 'status')).toBe(true);
    // Several retry periods later B still only watches the Lease.
    await new Promise((r) => setTimeout(r, 1000));
    expect(writes(kubeconfig.user)).toEqual([]);
    expect(h.kube.requests.filter((r) => r.user === kubeconfig.user && r.resource === 'leases').length).toBeGreaterThan(2);

    // A steps down and releases the Lease: B takes over without waiting for it to expire.
    const stoppedAt = Date.now();
    await operator.stop();
    expect(holder()).toBe('');
    await until(() => holder()?.startsWith('operator-b_'), 5000, 'operator-b to take the Lease');
    // Well before the 10 s Lease could have expired.
    expect(Date.now() - stoppedAt).toBeLessThan(5000);
    await until(async () => (await probe('/readyz'))?.text.includes('"leader":true'), 5000, 'operator-b to report leadership');
    await h.create('tenants', 'team-x', 'second', tenantSpec('second'));
    const second = await h.ready('tenants', 'team-x', 'second');
    expect(writes(kubeconfig.user).some((r) => r.subresource === 'status' && r.name === 'second')).toBe(true);
    const admin = h.secret('team-x', 'second-admin')!;
    expect((await h.call('TenantGet', {}, { token: admin.token })).body.tenantid).toBe(second.status.tenantId);
    expect((await probe('/metrics'))!.text).toMatch(/^strongroom_operator_reconcile_total\{kind="Tenant",result="success"\} [1-9]/m);

    // SIGTERM: in-flight work finishes, the Lease is handed back, the process exits 0.
    const exited = new Promise<number | null>((resolve) => b!.once('exit', (code) => resolve(code)));
    b.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(holder()).toBe('');
    expect(bOutput).toMatch(/"msg":"released the leader lease"/);
    // Logs never carry tokens.
    expect(bOutput).not.toContain(h.rootToken);
    expect(bOutput).not.toContain(admin.token);
  });
});
