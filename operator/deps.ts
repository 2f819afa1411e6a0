// What the Tenant and Role reconcilers work with, built once by the operator.
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Clock } from './runtime/clock.js';
import type { CustomResources } from './runtime/custom-resources.js';
import type { EventRecorder } from './runtime/events.js';
import type { OperatorMetrics } from './runtime/metrics.js';
import { ReconcileError } from './runtime/reconcile-error.js';
import type { OwnedSecrets } from './runtime/secrets.js';
import type { Resource, Role, RoleStatus, Tenant, TenantStatus } from './types/resources.js';
import type { VaultClient } from './vault-client.js';

export interface ReconcileDeps {
  vault: VaultClient;
  secrets: OwnedSecrets;
  events: EventRecorder;
  metrics: OperatorMetrics;
  log: Logger;
  /** The time that xtoken expiry and rotation are judged by. */
  clock: Clock;
  /** The vault's address as applications should use it, written into the Secrets. */
  publicUrl: string;
  tenants: CustomResources<TenantStatus>;
  roles: CustomResources<RoleStatus>;
  /** What the informers hold now: used to find two resources claiming one vault name. */
  cachedTenants(): readonly Tenant[];
  cachedRoles(): readonly Role[];
}

/** The spec checked against its schema, or a permanent InvalidSpec error naming the field. */
export function parseSpec<S extends z.ZodType>(schema: S, spec: unknown): z.infer<S> {
  const parsed = schema.safeParse(spec);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ReconcileError('InvalidSpec', `spec.${issue.path.join('.')}: ${issue.message}`, { permanent: true });
}

/**
 * Vault tenants and roles are global, so one vault name belongs to one resource: the one that already manages it
 * (has an id in its status), or, when none does yet, the one created first. Any other gets `reason` and waits.
 */
export function claimVaultName<R extends Resource>(obj: R, others: readonly R[], claim: { name: string; nameOf(o: R): unknown; managed(o: R): boolean; reason: string }): void {
  // Custom objects arrive as plain JSON: the timestamp is the server's RFC 3339 string, whatever the type says.
  const time = (o: R) => Date.parse(String(o.metadata.creationTimestamp ?? '')) || 0;
  const earlier = (a: R, b: R) => time(a) < time(b) || (time(a) === time(b) && `${a.metadata.namespace}/${a.metadata.name}` < `${b.metadata.namespace}/${b.metadata.name}`);
  const rival = others.find(
    (o) =>
      o.metadata.uid !== obj.metadata.uid &&
      !o.metadata.deletionTimestamp &&
      claim.nameOf(o) === claim.name &&
      (claim.managed(o) || (!claim.managed(obj) && earlier(o, obj))),
  );
  if (rival) {
    throw new ReconcileError(claim.reason, `${rival.kind} ${rival.metadata.namespace}/${rival.metadata.name} already manages vault ${rival.kind.toLowerCase()} ${claim.name}`, { retryAfterMs: 60_000 });
  }
}
