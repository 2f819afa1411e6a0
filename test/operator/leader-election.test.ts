// Two operators, one Lease: only the leader reconciles. The second one is `operator/main.ts` as a process,
// configured the way `npm run operator` is (KUBECONFIG, STRONGROOM_URL, a root token file, WATCH_NAMESPACE); it
// takes over when the leader steps down, and stops cleanly on SIGTERM, handing the Lease back.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../fixtures/processes.js';
import { LEASE_NAME, LEASE_NAMESPACE, startHarness, until, type Harness } from './harness.js';
import type { Operator } from '../../operator/operator.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let h: Harness;
let a: Operator;
let b: ChildProcess | undefined;
let bOutput = '';

beforeAll(async () => {
  h = await startHarness();
  a = await h.startOperator('operator-a');
  await until(() => a.isLeader(), 10_000, 'operator-a to lead');
});
afterAll(async () => {
  if (b && b.exitCode === null) b.kill('SIGKILL');
  await h?.stop();
});

const tenantSpec = (name: string) => ({ tenantName: name, organisation: 'Lease Ltd', adminTokenSecretName: `${name}-admin` });
const writes = (user: string) => h.kube.requests.filter((r) => r.user === user && ['create', 'update', 'patch', 'delete'].includes(r.verb) && r.resource !== 'leases');
const holder = () => h.kube.get('leases', LEASE_NAMESPACE, LEASE_NAME)?.spec?.holderIdentity as string | undefined;

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
        STRONGROOM_OPERATOR_LEASE_SECONDS: '2',
        STRONGROOM_OPERATOR_RENEW_DEADLINE_SECONDS: '1.5',
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
    await until(async () => (await probe('/healthz'))?.status === 200, 20_000, `operator-b to serve /healthz; output:\n${bOutput}`);
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
    await a.stop();
    expect(holder()).toBe('');
    await until(() => holder()?.startsWith('operator-b_'), 5000, 'operator-b to take the Lease');
    expect(Date.now() - stoppedAt).toBeLessThan(2000);
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
