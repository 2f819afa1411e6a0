// Which vault tenant a Tenant resource manages: the one of its spec's name that carries its owner mark (`managedby`,
// the resource's uid), which the operator sets when it creates the tenant. The status is output only: an id
// written there by anyone is never read back. The main tenant carries no mark and is never managed.
import type { ReconcileDeps } from '../deps.js';
import { ReconcileError } from '../runtime/reconcile-error.js';
import type { Tenant } from '../types/resources.js';
import type { TenantInfo } from '../vault-client.js';

/** The vault's own tenant: its name, and its id (a renamed main tenant is still refused by id). */
export const MAIN_TENANT = { id: 1, name: 'main' };
/** How long a resource whose vault name is taken waits before looking again (its own changes wake it sooner). */
const TAKEN_RETRY_MS = 60_000;

export const ownsTenant = (obj: Tenant, found: TenantInfo): boolean => found.tenantid !== MAIN_TENANT.id && found.managedby === obj.metadata.uid;

/** MainTenantRefused (permanent) for a spec naming the main tenant. */
export function refuseMain(tenantName: string): void {
  if (tenantName === MAIN_TENANT.name) {
    throw new ReconcileError('MainTenantRefused', `tenantName ${tenantName} is the vault’s main tenant, which the operator never manages`, { permanent: true });
  }
}

/** TenantExists: the vault has a tenant of that name and it is not this resource's. */
export function tenantTaken(found: TenantInfo): ReconcileError {
  if (found.tenantid === MAIN_TENANT.id) {
    return new ReconcileError('MainTenantRefused', `vault tenant ${found.tenantname} is the vault’s main tenant, which the operator never manages`, { permanent: true });
  }
  const owner = found.managedby === undefined ? 'it carries no owner mark' : `its owner mark is ${found.managedby}`;
  return new ReconcileError('TenantExists', `vault tenant ${found.tenantname} already exists and is not managed by this Tenant (${owner}); it is left untouched`, {
    retryAfterMs: TAKEN_RETRY_MS,
  });
}

/**
 * The vault tenant this Tenant resource manages, or undefined when the vault has no tenant of that name. One that
 * carries another resource's mark gives TenantNameTaken naming that resource (from the vault's mark, so a status
 * cannot claim it); one carrying no mark or a stranger's gives TenantExists.
 */
export async function ownedTenant(deps: ReconcileDeps, obj: Tenant, tenantName: string): Promise<TenantInfo | undefined> {
  const found = await deps.vault.tenantByName(tenantName);
  if (!found || ownsTenant(obj, found)) return found;
  const rival = found.managedby === undefined ? undefined : deps.cachedTenants().find((o) => o.metadata.uid === found.managedby);
  if (rival && found.tenantid !== MAIN_TENANT.id) {
    throw new ReconcileError('TenantNameTaken', `Tenant ${rival.metadata.namespace}/${rival.metadata.name} already manages vault tenant ${tenantName}`, {
      retryAfterMs: TAKEN_RETRY_MS,
    });
  }
  throw tenantTaken(found);
}
