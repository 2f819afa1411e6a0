// What deleting a Tenant resource does to the vault: nothing under deletionPolicy Retain (the default); under
// Delete, TenantDelete, which drops the tenant's schema with all its data and every credential. Only the tenant of
// the spec's name that carries this resource's owner mark is deleted (the vault checks the mark too); a tenant of
// that name made by anyone else, and the main tenant, stay. Idempotent: a tenant already gone counts as deleted. The
// admin token Secret goes with the resource (owner reference).
import type { ReconcileDeps } from '../deps.js';
import { TenantSpec, type Tenant } from '../types/resources.js';
import { MAIN_TENANT, ownsTenant } from './ownership.js';

export async function finalizeTenant(deps: ReconcileDeps, obj: Tenant): Promise<void> {
  const parsed = TenantSpec.safeParse(obj.spec);
  // Without a valid name, or naming the main tenant, this resource never managed a vault tenant: nothing to remove.
  if (!parsed.success || parsed.data.tenantName === MAIN_TENANT.name) return;
  const { tenantName: name, deletionPolicy } = parsed.data;
  if (deletionPolicy !== 'Delete') {
    await deps.events.emit(obj, 'Normal', 'TenantRetained', `deletionPolicy Retain: vault tenant ${name} and its data are kept`);
    return;
  }
  const found = await deps.vault.tenantByName(name);
  if (found && !ownsTenant(obj, found)) {
    await deps.events.emit(obj, 'Normal', 'TenantRetained', `deletionPolicy Delete: vault tenant ${name} is not managed by this Tenant, so it is kept`);
    return;
  }
  if (found) await deps.vault.tenantDelete(found.tenantid, obj.metadata.uid);
  await deps.events.emit(obj, 'Normal', 'TenantDeleted', `deletionPolicy Delete: vault tenant ${name} was deleted with its data and credentials`);
}
