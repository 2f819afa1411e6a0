// What deleting a Tenant resource does to the vault: nothing under deletionPolicy Retain (the default); under
// Delete, TenantDelete of every vault tenant carrying this resource's owner mark, whatever its name now (one renamed
// by its mark, or copies an older operator made after renames), which drops each schema with all its data and every
// credential; the vault checks the mark on each deletion too. A tenant of the spec's name made by anyone else, and
// the main tenant, stay. Idempotent: a tenant already gone counts as deleted. The admin token Secret goes with the
// resource (owner reference).
import type { ReconcileDeps } from '../deps.js';
import { TenantSpec, type Tenant } from '../types/resources.js';
import { MAIN_TENANT } from './ownership.js';

export async function finalizeTenant(deps: ReconcileDeps, obj: Tenant): Promise<void> {
  const parsed = TenantSpec.safeParse(obj.spec);
  // Without a valid name, or naming the main tenant, this resource never managed a vault tenant: nothing to remove.
  if (!parsed.success || parsed.data.tenantName === MAIN_TENANT.name) return;
  const { tenantName: name, deletionPolicy } = parsed.data;
  if (deletionPolicy !== 'Delete') {
    await deps.events.emit(obj, 'Normal', 'TenantRetained', `deletionPolicy Retain: vault tenant ${name} and its data are kept`);
    return;
  }
  const uid = obj.metadata.uid;
  const mine = (await deps.vault.tenantsMarked(uid)).filter((t) => t.tenantid !== MAIN_TENANT.id);
  for (const tenant of mine) await deps.vault.tenantDelete(tenant.tenantid, uid);
  if (mine.length === 0 && (await deps.vault.tenantByName(name))) {
    await deps.events.emit(obj, 'Normal', 'TenantRetained', `deletionPolicy Delete: vault tenant ${name} is not managed by this Tenant, so it is kept`);
    return;
  }
  const names = mine.length === 0 ? name : mine.map((t) => t.tenantname).join(', ');
  await deps.events.emit(obj, 'Normal', 'TenantDeleted', `deletionPolicy Delete: vault tenant ${names} was deleted with its data and credentials`);
}
