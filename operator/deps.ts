// What the Tenant and Role reconcilers work with, built once by the operator.
import type { Logger } from 'pino';
import type { CustomResources } from './runtime/custom-resources.js';
import type { EventRecorder } from './runtime/events.js';
import type { OperatorMetrics } from './runtime/metrics.js';
import { ReconcileError } from './runtime/reconcile-error.js';
import type { OwnedSecrets } from './runtime/secrets.js';
import type { Resource, Role, RoleStatus, Tenant, TenantStatus } from './types/resources.js';
import type { VaultClient } from './vault-client.js';
import type { z } from 'zod';

export interface ReconcileDeps {
  vault: VaultClient;
  secrets: OwnedSecrets;
  events: EventRecorder;
  metrics: OperatorMetrics;
  log: Logger;
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
 * Another live resource that claims the same vault object: one that already manages it (has an id in its status),
 * or, when neither does yet, one created earlier. The first claimant keeps the name; the other waits.
 */
export function rivalOf<R extends Resource>(obj: R, others: readonly R[], sameName: (o: R) => boolean, managed: (o: R) => boolean): R | undefined {
  // Custom objects arrive as plain JSON: the timestamp is the server's RFC 3339 string, whatever the type says.
  const time = (o: R) => Date.parse(String(o.metadata.creationTimestamp ?? '')) || 0;
  const earlier = (a: R, b: R) => time(a) < time(b) || (time(a) === time(b) && `${a.metadata.namespace}/${a.metadata.name}` < `${b.metadata.namespace}/${b.metadata.name}`);
  return others.find(
    (o) => o.metadata.uid !== obj.metadata.uid && !o.metadata.deletionTimestamp && sameName(o) && (managed(o) || (!managed(obj) && earlier(o, obj))),
  );
}
