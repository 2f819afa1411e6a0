// What deleting a Tenant resource does to the vault: nothing under deletionPolicy Retain (the default); under
// Delete, TenantDelete, which drops the tenant's schema with all its data and every credential. Idempotent: a
// tenant that is already gone counts as deleted. The admin token Secret goes with the resource (owner reference).
import type { ReconcileDeps } from '../deps.js';
import { ReconcileError } from '../runtime/reconcile-error.js';
import { TenantSpec, type Tenant } from '../types/resources.js';

export async function finalizeTenant(deps: ReconcileDeps, obj: Tenant): Promise<void> {
  const parsed = TenantSpec.safeParse(obj.spec);
  const policy = parsed.success ? parsed.data.deletionPolicy : 'Retain';
  const tenantId = obj.status?.tenantId;
  // Without an id this resource never managed a vault tenant (or lost a name conflict): nothing to remove.
  if (tenantId === undefined) return;
  const name = obj.status?.tenantName ?? (parsed.success ? parsed.data.tenantName : '?');
  if (policy !== 'Delete') {
    await deps.events.emit(obj, 'Normal', 'TenantRetained', `deletionPolicy Retain: vault tenant ${name} (id ${tenantId}) and its data are kept`);
    return;
  }
  const info = await deps.vault.tenantGet(tenantId);
  if (info && info.tenantname !== name) {
    // The status names a tenant that is not the one with this id: refuse rather than delete someone else's data.
    throw new ReconcileError('CleanupRefused', `vault tenant ${tenantId} is named ${info.tenantname}, not ${name}; not deleting it`, { retryAfterMs: 300_000 });
  }
  if (info) await deps.vault.tenantDelete(tenantId);
  await deps.events.emit(obj, 'Normal', 'TenantDeleted', `deletionPolicy Delete: vault tenant ${name} (id ${tenantId}) was deleted with its data and credentials`);
}
