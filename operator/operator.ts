// The operator as one object: informers for Tenants and Roles feeding two controllers, run only while this instance
// holds the leader Lease, an HTTP server for metrics and probes, and a stop that finishes in-flight reconciles and
// hands the Lease over. main.ts builds it from the environment; tests build it directly.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ReconcileDeps } from './deps.js';
import type { Kube } from './kube.js';
import type { Clock } from './runtime/clock.js';
import { Controller, type ControllerOptions } from './runtime/controller.js';
import { CustomResources } from './runtime/custom-resources.js';
import { EventRecorder } from './runtime/events.js';
import { startHttp } from './runtime/http.js';
import type { Informer } from './runtime/informer.js';
import { LeaderElector, type LeaderElectionOptions } from './runtime/leader-election.js';
import { createMetrics, type OperatorMetrics } from './runtime/metrics.js';
import { OwnedSecrets } from './runtime/secrets.js';
import { roleReconciler } from './role/reconcile.js';
import { tenantReconciler } from './tenant/reconcile.js';
import type { Resource, RoleSpec, RoleStatus, TenantStatus } from './types/resources.js';
import { VaultClient } from './vault-client.js';

export interface OperatorOptions {
  kube: Kube;
  vault: { url: string; publicUrl?: string; rootToken: () => string; timeoutMs?: number };
  /** Only this namespace; undefined: all namespaces. */
  watchNamespace?: string;
  /** undefined: no election, this instance always reconciles. */
  leaderElection?: LeaderElectionOptions;
  identity: string;
  workers?: number;
  resyncMs?: number;
  backoff?: { baseDelayMs?: number; maxDelayMs?: number };
  /** Serve /metrics, /healthz, /readyz; port 0 picks a free one. */
  http?: { port: number; host: string };
  defaultMetrics?: boolean;
  log: Logger;
  /** What every time-dependent decision reads; main.ts gives the system clock. */
  clock: Clock;
}

export interface Operator {
  identity: string;
  isLeader(): boolean;
  registry: Registry;
  httpPort: number | undefined;
  stop(): Promise<void>;
}

type AnyResource = Resource<TenantStatus> | Resource<RoleStatus>;

export async function startOperator(opts: OperatorOptions): Promise<Operator> {
  const { kube, log, clock } = opts;
  const metrics = createMetrics({ defaultMetrics: opts.defaultMetrics });
  const vault = new VaultClient({
    url: opts.vault.url,
    rootToken: opts.vault.rootToken,
    timeoutMs: opts.vault.timeoutMs,
    observe: (operation, status) => metrics.vaultRequests.inc({ operation, status: String(status) }),
  });
  const controllers = new Controllers(opts, metrics, vault);
  const elector = opts.leaderElection
    ? new LeaderElector(
        kube,
        opts.leaderElection,
        { onStartedLeading: () => controllers.start(), onStoppedLeading: () => controllers.stop() },
        log,
        clock,
      )
    : undefined;
  const isLeader = () => (elector ? elector.isLeader() : controllers.running);
  const http = opts.http
    ? await startHttp(
        {
          registry: metrics.registry,
          ready: () => {
            const leader = isLeader();
            return { leader, ready: leader ? controllers.synced : true };
          },
        },
        opts.http.port,
        opts.http.host,
      )
    : undefined;

  if (elector) elector.run();
  else await controllers.start();

  let stopping: Promise<void> | undefined;
  return {
    identity: opts.identity,
    isLeader,
    registry: metrics.registry,
    httpPort: http?.port,
    stop: () =>
      (stopping ??= (async () => {
        if (elector) await elector.stop();
        else await controllers.stop();
        if (http) await new Promise<void>((resolve) => http.server.close(() => resolve()));
        log.info('operator stopped');
      })()),
  };
}

/** The Tenant and Role informers and controllers: started when this instance leads, stopped when it stops leading. */
class Controllers {
  private tenantInformer: Informer<Resource<TenantStatus>> | undefined;
  private roleInformer: Informer<Resource<RoleStatus>> | undefined;
  private controllers: { tenant: Controller<TenantStatus>; role: Controller<RoleStatus> } | undefined;
  private readonly tenants: CustomResources<TenantStatus>;
  private readonly roles: CustomResources<RoleStatus>;
  private readonly deps: ReconcileDeps;
  private readonly controllerOptions: ControllerOptions;

  constructor(
    private readonly opts: OperatorOptions,
    private readonly metrics: OperatorMetrics,
    vault: VaultClient,
  ) {
    const { kube, log, clock } = opts;
    this.tenants = new CustomResources<TenantStatus>(kube, 'Tenant', 'tenants');
    this.roles = new CustomResources<RoleStatus>(kube, 'Role', 'roles');
    const events = new EventRecorder(kube, opts.identity, log, clock);
    this.deps = {
      vault,
      secrets: new OwnedSecrets(kube),
      events,
      metrics,
      log,
      clock,
      publicUrl: (opts.vault.publicUrl ?? opts.vault.url).replace(/\/+$/, ''),
      tenants: this.tenants,
      roles: this.roles,
      cachedTenants: () => this.tenantInformer?.list() ?? [],
      cachedRoles: () => this.roleInformer?.list() ?? [],
    };
    this.controllerOptions = { events, metrics, log, clock, workers: opts.workers ?? 2, resyncMs: opts.resyncMs ?? 600_000, backoff: opts.backoff };
  }

  get running(): boolean {
    return this.controllers !== undefined;
  }

  get synced(): boolean {
    return Boolean(this.tenantInformer?.hasSynced() && this.roleInformer?.hasSynced());
  }

  async start(): Promise<void> {
    const { opts, metrics } = this;
    const restarted = (resource: string) => () => metrics.informerRestarts.inc({ resource });
    const tenant = new Controller(tenantReconciler(this.deps), this.controllerOptions);
    const role = new Controller(roleReconciler(this.deps), this.controllerOptions);
    const tenantInformer = (this.tenantInformer = this.tenants.informer(opts.watchNamespace, opts.log, restarted('tenants.strongroom.dev')));
    const roleInformer = (this.roleInformer = this.roles.informer(opts.watchNamespace, opts.log, restarted('roles.strongroom.dev')));
    const wire = (informer: Informer<AnyResource>, controller: { enqueue(obj: AnyResource): void }) => {
      for (const ev of ['add', 'update', 'delete'] as const) informer.on(ev, (obj) => controller.enqueue(obj));
    };
    wire(tenantInformer, tenant);
    wire(roleInformer, role);
    // A Tenant that changes (becomes ready, gets an id, goes away) wakes the Roles that refer to it.
    const wakeRoles = (t: AnyResource) => {
      for (const r of this.roleInformer?.list(t.metadata.namespace) ?? []) {
        if ((r.spec as Partial<RoleSpec>).tenantRef?.name === t.metadata.name) role.enqueue(r);
      }
    };
    for (const ev of ['add', 'update', 'delete'] as const) tenantInformer.on(ev, wakeRoles);
    this.controllers = { tenant, role };
    await Promise.all([tenantInformer.start(), roleInformer.start()]);
    tenant.start();
    role.start();
    metrics.leader.set(1);
    opts.log.info({ namespace: opts.watchNamespace ?? '(all)' }, 'reconciling');
  }

  async stop(): Promise<void> {
    this.metrics.leader.set(0);
    const r = this.controllers;
    this.controllers = undefined;
    await Promise.all([this.tenantInformer?.stop(), this.roleInformer?.stop()]);
    if (r) await Promise.all([r.tenant.stop(), r.role.stop()]);
  }
}
