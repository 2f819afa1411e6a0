// The Kubernetes API double behaves like the API server where the operator relies on it, seen through client-node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as k8s from '@kubernetes/client-node';
import { startKubeDouble, type KubeDouble } from './kube-double/index.js';

const GROUP = 'strongroom.dev';
const VERSION = 'v1alpha1';
const NS = 'double';

let kube: KubeDouble;
let dir: string;
let custom: k8s.CustomObjectsApi;
let core: k8s.CoreV1Api;
let coordination: k8s.CoordinationV1Api;
let kc: k8s.KubeConfig;

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

function tenant(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Tenant',
    metadata: { name },
    spec: { tenantName: name.replace(/-/g, ''), organisation: 'Acme', adminTokenSecretName: `${name}-admin`, ...spec },
  };
}

async function failure(p: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await p;
  } catch (err) {
    const e = err as k8s.ApiException<string>;
    return { code: e.code, body: typeof e.body === 'string' ? JSON.parse(e.body) : e.body };
  }
  throw new Error('the call succeeded');
}

async function until<T>(what: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  kube = await startKubeDouble({ users: new Map([['admin-token', { name: 'admin' }]]) });
  dir = mkdtempSync(join(tmpdir(), 'kd-'));
  kc = new k8s.KubeConfig();
  kc.loadFromFile(kube.writeKubeconfig(dir, { token: 'admin-token', namespace: NS }));
  custom = kc.makeApiClient(k8s.CustomObjectsApi);
  core = kc.makeApiClient(k8s.CoreV1Api);
  coordination = kc.makeApiClient(k8s.CoordinationV1Api);
});
afterAll(async () => {
  await kube.close();
  rmSync(dir, { recursive: true, force: true });
});

const create = (body: object) => custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', body });
const get = (name: string) => custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name });

describe('the Kubernetes API double', () => {
  it('creates custom resources with server fields, schema defaults and pruning, and refuses invalid ones with 422', async () => {
    const made = await create({ ...tenant('alpha'), spec: { ...tenant('alpha').spec, unknownField: 1 }, status: { tenantId: 9 } });
    expect(made.metadata).toMatchObject({ name: 'alpha', namespace: NS, generation: 1 });
    expect(made.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.spec.deletionPolicy).toBe('Retain');
    expect(made.spec.unknownField).toBeUndefined();
    expect(made.status).toBeUndefined();

    const bad = await failure(create(tenant('beta', { tenantName: 'Not Valid!' })));
    expect(bad.code).toBe(422);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    expect(bad.body.message).toContain('spec.tenantName');
    expect((await failure(create(tenant('alpha')))).code).toBe(409);
    expect((await failure(get('nobody'))).body.reason).toBe('NotFound');
  });

  it('answers 409 to a stale resourceVersion, bumps generation only on spec changes, and enforces immutable fields', async () => {
    const t = await create(tenant('gamma'));
    const updated = await custom.replaceNamespacedCustomObject({
      group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'gamma',
      body: { ...t, spec: { ...t.spec, organisation: 'Other' } },
    });
    expect(updated.metadata.generation).toBe(2);
    const stale = await failure(custom.replaceNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'gamma', body: t }));
    expect(stale.code).toBe(409);
    expect(stale.body.reason).toBe('Conflict');

    const labelled = await custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'gamma', body: { metadata: { labels: { a: 'b' } } } }, merge);
    expect(labelled.metadata.generation).toBe(2);
    const noRv = await failure(custom.replaceNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'gamma', body: { ...labelled, metadata: { ...labelled.metadata, resourceVersion: undefined } } }));
    expect(noRv.code).toBe(422);
    const renamed = await failure(custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'gamma', body: { spec: { tenantName: 'other' } } }, merge));
    expect(renamed.code).toBe(422);
    expect(renamed.body.message).toContain('tenantName is immutable');
    const patchWithStaleRv = await failure(custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'gamma', body: { metadata: { resourceVersion: t.metadata.resourceVersion, labels: { c: 'd' } } } }, merge));
    expect(patchWithStaleRv.code).toBe(409);
  });

  it('serves the status subresource: status only through /status, spec only through the main resource', async () => {
    await create(tenant('delta'));
    const viaMain = await custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'delta', body: { status: { tenantId: 4 } } }, merge);
    expect(viaMain.status).toBeUndefined();
    const viaStatus = await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'delta', body: { spec: { organisation: 'Ignored' }, status: { tenantId: 4 } } }, merge);
    expect(viaStatus.status).toEqual({ tenantId: 4 });
    expect(viaStatus.spec.organisation).toBe('Acme');
    expect(viaStatus.metadata.generation).toBe(1);
    const badStatus = await failure(custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'delta', body: { status: { tenantId: 'four' } } }, merge));
    expect(badStatus.code).toBe(422);
    // Without a content type option client-node sends a JSON patch; a failed test operation is refused.
    const jp = await custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'delta', body: [{ op: 'test', path: '/spec/organisation', value: 'Acme' }, { op: 'replace', path: '/spec/organisation', value: 'Patched' }] });
    expect(jp.spec.organisation).toBe('Patched');
    expect(kube.requests.at(-1)!.contentType).toBe('application/json-patch+json');
    const failedTest = await failure(custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'delta', body: [{ op: 'test', path: '/spec/organisation', value: 'Acme' }] }));
    expect(failedTest.code).toBe(422);
    const smp = await failure(custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'delta', body: {} }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch)));
    expect(smp.code).toBe(415);
  });

  it('keeps an object with finalizers until they are removed, refuses new ones during deletion, and collects owned objects', async () => {
    const t = await create({ ...tenant('epsilon'), metadata: { name: 'epsilon', finalizers: ['strongroom.dev/test'] } });
    await core.createNamespacedSecret({
      namespace: NS,
      body: { metadata: { name: 'epsilon-admin', ownerReferences: [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'Tenant', name: 'epsilon', uid: t.metadata.uid }] }, stringData: { token: 'x' } },
    });
    const deleting = await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'epsilon' });
    expect(deleting.metadata.deletionTimestamp).toBeTruthy();
    expect(deleting.metadata.generation).toBe(2);
    const stillThere = await get('epsilon');
    const more = await failure(custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'epsilon', body: { metadata: { finalizers: ['strongroom.dev/test', 'x/y'] } } }, merge));
    expect(more.code).toBe(422);
    await custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'epsilon', body: { metadata: { finalizers: null, resourceVersion: stillThere.metadata.resourceVersion } } }, merge);
    expect((await failure(get('epsilon'))).code).toBe(404);
    await until(() => kube.get('secrets', NS, 'epsilon-admin') === undefined);
  });

  it('stores Secret stringData as base64 data and accepts unconditional updates of built-ins', async () => {
    const s = await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'plain' }, stringData: { a: 'hello' } } });
    expect(s.data).toEqual({ a: Buffer.from('hello').toString('base64') });
    expect((s as { stringData?: unknown }).stringData).toBeUndefined();
    const replaced = await core.replaceNamespacedSecret({ namespace: NS, name: 'plain', body: { metadata: { name: 'plain' }, data: { b: 'aGk=' } } });
    expect(replaced.data).toEqual({ b: 'aGk=' });
    expect((await failure(core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'bad' }, data: { a: 'not base64!' } } }))).code).toBe(400);
  });

  it('decodes Lease times only with six fractional digits, as metav1.MicroTime does', async () => {
    const lease = { metadata: { name: 'lock' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 5, renewTime: new k8s.V1MicroTime() } };
    const made = await coordination.createNamespacedLease({ namespace: NS, body: lease });
    expect(String(made.spec!.renewTime)).toMatch(/\.\d{6}Z$/);
    const plain = { metadata: { name: 'lock2' }, spec: { holderIdentity: 'a', renewTime: new Date() as k8s.V1MicroTime } };
    expect((await failure(coordination.createNamespacedLease({ namespace: NS, body: plain }))).code).toBe(400);
  });

  it('lists and watches from a resourceVersion, resumes after a closed stream and relists after 410 Expired', async () => {
    const path = `/apis/${GROUP}/${VERSION}/namespaces/watched/tenants`;
    const listFn = () => custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'watched', plural: 'tenants' });
    const informer = new k8s.ListWatch(path, new k8s.Watch(kc), listFn as never, false);
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata!.name}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name}`));
    const createIn = (name: string) => custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'watched', plural: 'tenants', body: tenant(name) });
    await createIn('one');
    await informer.start();
    await until(() => seen.includes('add one'));
    await until(() => kube.openWatches().some((w) => w.attributes.namespace === 'watched'));
    await createIn('two');
    await until(() => seen.includes('add two'));

    // A cleanly closed stream: the informer watches again from the last resourceVersion it saw, without a list.
    const lists = () => kube.requests.filter((r) => r.verb === 'list' && r.namespace === 'watched').length;
    const listsBefore = lists();
    const lastSeen = informer.latestResourceVersion();
    expect(kube.killWatches('end', (w) => w.attributes.namespace === 'watched')).toBe(1);
    await until(() => kube.openWatches().some((w) => w.attributes.namespace === 'watched' && w.query.resourceVersion === lastSeen));
    await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'watched', plural: 'tenants', name: 'one' });
    await until(() => seen.includes('delete one'));
    expect(lists()).toBe(listsBefore);

    // History compacted while the stream is down: the watch gets 410 Expired, the informer lists again.
    const down = kube.holdWatches((a) => a.namespace === 'watched');
    kube.killWatches('end', (w) => w.attributes.namespace === 'watched');
    await until(() => down.waiting() === 1);
    await createIn('three');
    kube.compact();
    down.release();
    await until(() => seen.includes('add three'));
    expect(lists()).toBe(listsBefore + 1);
    const watchRequests = kube.requests.filter((r) => r.verb === 'watch' && r.namespace === 'watched');
    expect(watchRequests.every((r) => r.query.watch === 'true' && r.query.resourceVersion)).toBe(true);
    await informer.stop();
  });

  it('authenticates bearer tokens and authorises by RBAC rules', async () => {
    kube.addUser('limited-token', { name: 'system:serviceaccount:x:limited', clusterRules: [{ apiGroups: [GROUP], resources: ['tenants'], verbs: ['get', 'list'] }] });
    const limited = new k8s.KubeConfig();
    limited.loadFromFile(kube.writeKubeconfig(dir, { token: 'limited-token', name: 'limited' }));
    const api = limited.makeApiClient(k8s.CustomObjectsApi);
    await api.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'alpha' });
    const denied = await failure(api.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace: NS, plural: 'tenants', name: 'alpha', body: { status: {} } }, merge));
    expect(denied.code).toBe(403);
    expect(denied.body.message).toContain('cannot patch resource "tenants" subresource "status"');
    const nobody = new k8s.KubeConfig();
    nobody.loadFromFile(kube.writeKubeconfig(dir, { token: 'wrong', name: 'nobody' }));
    expect((await failure(nobody.makeApiClient(k8s.CoreV1Api).listNamespacedSecret({ namespace: NS }))).code).toBe(401);
  });
});
