// End-to-end setting for operator tests: a real Strongroom (the `npm start` supervisor on its own database), the
// Kubernetes API double with the chart's RBAC for the operator, a kubectl-like admin client, and helpers. By default
// the operator gets exactly what the chart renders for its default values: its rules in a Role of the watched
// namespace ("<release namespace>-tenants") and the Lease rules in the release namespace, and it watches only that
// namespace. `clusterWide: true` is the chart's opt-in ClusterRole, for tests that need several namespaces.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import * as k8s from '@kubernetes/client-node';
import { startSupervisor, type Supervised } from '../fixtures/processes.js';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.js';
import { fromConfig } from '../../operator/kube.js';
import { startOperator, type Operator, type OperatorOptions } from '../../operator/operator.js';
import { systemClock } from '../../operator/runtime/clock.js';
import { findCondition } from '../../operator/runtime/conditions.js';
import { startKubeDouble, type KObject, type KubeDouble } from './kube-double/index.js';
import { chartOperatorRules } from './chart-rbac.js';
import type { User } from './kube-double/authz.js';

export const GROUP = 'strongroom.dev';
export const VERSION = 'v1alpha1';
export const LEASE_NAMESPACE = 'strongroom-system';
export const LEASE_NAME = 'strongroom-operator';
/** The namespace the chart's default values watch: "<release namespace>-tenants". */
export const WATCHED_NAMESPACE = `${LEASE_NAMESPACE}-tenants`;
/**
 * Candidates retry quickly; the Lease lasts long enough that a takeover within a few seconds can only come from a
 * released Lease, never from an expired one.
 */
export const FAST_LEASE = { leaseDurationMs: 10_000, renewDeadlineMs: 5000, retryPeriodMs: 200 };

export interface Answer {
  status: number;
  body: Record<string, any>;
}

export interface HarnessOptions {
  /** The chart's operator.clusterWide: a ClusterRole, every namespace watched. Default false (a namespaced Role). */
  clusterWide?: boolean;
}

export interface Harness {
  kube: KubeDouble;
  /** The namespace the operator watches by default (WATCHED_NAMESPACE), or undefined when it watches every one. */
  namespace: string | undefined;
  vaultUrl: string;
  rootToken: string;
  dir: string;
  custom: k8s.CustomObjectsApi;
  core: k8s.CoreV1Api;
  /** POST /v2/<op> to the vault, as root unless `token` says otherwise. */
  call(op: string, body?: object, as?: { token?: string; tenant?: string }): Promise<Answer>;
  /** An operator in this process, authenticated as its own service account with the chart's rules (watching `namespace`). */
  startOperator(name: string, opts?: Partial<OperatorOptions>): Promise<Operator>;
  /** Writes a kubeconfig for a new service account with the chart's rules; returns its path and user name. */
  operatorKubeconfig(name: string): { path: string; user: string };
  create(plural: 'tenants' | 'roles', namespace: string, name: string, spec: object): Promise<KObject>;
  patchSpec(plural: 'tenants' | 'roles', namespace: string, name: string, spec: object): Promise<KObject>;
  remove(plural: 'tenants' | 'roles', namespace: string, name: string): Promise<void>;
  get(plural: 'tenants' | 'roles', namespace: string, name: string): KObject | undefined;
  secret(namespace: string, name: string): Record<string, string> | undefined;
  ready(plural: 'tenants' | 'roles', namespace: string, name: string, generation?: number): Promise<KObject>;
  stop(): Promise<void>;
}

export async function until<T>(what: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000, label = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await what();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const namespace = options.clusterWide ? undefined : WATCHED_NAMESPACE;
  const dir = mkdtempSync(join(tmpdir(), 'sro-'));
  const db: TestDatabase = await createTestDatabase();
  const rootToken = randomUUID();
  const vault: Supervised = await startSupervisor({
    STRONGROOM_DATA_DIR: join(dir, 'data'),
    DATABASE_URL: db.url,
    STRONGROOM_ROOT_TOKEN: rootToken,
    STRONGROOM_WRAPPING_KEY: undefined,
    STRONGROOM_WRAPPING_KEY_FILE: undefined,
    STRONGROOM_LOG_LEVEL: 'warn',
    STRONGROOM_SWEEP_SECONDS: '0',
  });
  const kube = await startKubeDouble({ users: new Map([['admin-token', { name: 'admin' }]]) });
  await vault.waitReady();
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kube.writeKubeconfig(dir, { token: 'admin-token', name: 'admin' }));
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const rules = chartOperatorRules(LEASE_NAME);
  const operators: Operator[] = [];

  const operatorKubeconfig = (name: string) => {
    const token = `${name}-token-${randomUUID()}`;
    const user = `system:serviceaccount:${LEASE_NAMESPACE}:${name}`;
    // As the chart binds them: operator-role.yaml in the watched namespace (or operator-clusterrole.yaml), and
    // operator-leader-election-role.yaml in the release namespace.
    const grants: Omit<User, 'name'> = namespace
      ? { namespaceRules: { [namespace]: rules.watched, [LEASE_NAMESPACE]: rules.lease } }
      : { clusterRules: rules.watched, namespaceRules: { [LEASE_NAMESPACE]: rules.lease } };
    kube.addUser(token, { name: user, ...grants });
    return { path: kube.writeKubeconfig(dir, { token, name, namespace: LEASE_NAMESPACE }), user };
  };

  const where = (plural: string, namespace: string) => ({ group: GROUP, version: VERSION, namespace, plural });
  const kinds = { tenants: 'Tenant', roles: 'Role' } as const;

  const h: Harness = {
    kube,
    namespace,
    vaultUrl: vault.url,
    rootToken,
    dir,
    custom,
    core,
    async call(op, body = {}, as = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-bunker-token': as.token ?? rootToken };
      if (as.tenant) headers['x-bunker-tenant'] = as.tenant;
      const res = await fetch(`${vault.url}/v2/${op}`, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    },
    async startOperator(name, opts = {}) {
      const config = new k8s.KubeConfig();
      config.loadFromFile(operatorKubeconfig(name).path);
      const op = await startOperator({
        kube: fromConfig(config),
        vault: { url: vault.url, rootToken: () => rootToken },
        leaderElection: { namespace: LEASE_NAMESPACE, name: LEASE_NAME, identity: name, ...FAST_LEASE },
        identity: name,
        workers: 2,
        resyncMs: 60_000,
        backoff: { baseDelayMs: 100, maxDelayMs: 2000 },
        log: pino({ level: process.env.OPERATOR_TEST_LOG ?? 'silent' }),
        clock: systemClock,
        ...(namespace && { watchNamespace: namespace }),
        ...opts,
      });
      operators.push(op);
      return op;
    },
    operatorKubeconfig,
    create: (plural, namespace, name, spec) =>
      custom.createNamespacedCustomObject({ ...where(plural, namespace), body: { apiVersion: `${GROUP}/${VERSION}`, kind: kinds[plural], metadata: { name }, spec } }),
    patchSpec: (plural, namespace, name, spec) =>
      custom.patchNamespacedCustomObject({ ...where(plural, namespace), name, body: { spec } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)),
    async remove(plural, namespace, name) {
      await custom.deleteNamespacedCustomObject({ ...where(plural, namespace), name });
    },
    get: (plural, namespace, name) => kube.get(plural, namespace, name, GROUP),
    secret(namespace, name) {
      const s = kube.get('secrets', namespace, name);
      return s && Object.fromEntries(Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    },
    ready(plural, namespace, name, generation = 1) {
      return until(
        () => {
          const o = kube.get(plural, namespace, name, GROUP);
          const c = findCondition(o?.status?.conditions, 'Ready');
          return o && c?.status === 'True' && o.status.observedGeneration >= generation ? o : undefined;
        },
        15_000,
        `${plural} ${namespace}/${name} Ready at generation ${generation}`,
      );
    },
    async stop() {
      await Promise.all(operators.map((o) => o.stop()));
      await kube.close();
      await vault.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}
