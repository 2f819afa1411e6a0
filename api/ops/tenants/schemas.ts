// Input pieces shared by the tenant operations.
import { z } from 'zod';
import { TENANT_NAME } from '../../vault/tenants.js';
import { forbidden } from '../../errors.js';
import { MAIN_TENANT_ID } from '../../store/database.js';
import type { Principal } from '../../vault/credentials.js';
import { RecordId } from '../schemas.js';
import { ManagedBy } from '../roles/schemas.js';

export const TenantName = z.string().max(63).regex(TENANT_NAME, { error: 'Invalid API request parameter: tenantname: lowercase letters and digits only' });
export const TenantOrg = z.string().min(1).max(256);
export const TenantEmail = z.string().max(256);
export const TenantId = RecordId;
/**
 * Beyond the contract: the tenant's owner mark, as roles and policies have one (RoleCreate). On TenantCreate and
 * TenantUpdate it sets the mark (and a marked tenant is renamed only by a call naming its mark); on
 * TenantRotateAdminToken, TenantDelete and XTokenCreateForRole it is a guard: the call acts only on a tenant carrying
 * exactly this mark (409 otherwise; 400 for the main tenant, which never carries one); on TenantListTenants a filter.
 */
export const TenantManagedBy = ManagedBy;

/**
 * Beyond the contract: the label of the tenant's own key-encryption key, an AES-256 key object in the tokenizer's HSM
 * (`pkcs11` custody only). Printable text, as HSM labels are.
 */
export const TenantKek = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x20-\x7e]+$/, { error: 'Invalid API request parameter: kek: the label of a key object in the HSM (printable ASCII)' });

/** Only the main tenant's root and admins may set or remove a tenant's owner mark. */
export function checkMainAdmin(principal: Principal): void {
  if (principal.tenantId !== MAIN_TENANT_ID || (principal.kind !== 'root' && principal.kind !== 'tenant-admin')) throw forbidden();
}

/**
 * The main tenant's root and admins may name any tenant; anyone else only their own. The answer for another
 * tenant is 403 whether it exists or not.
 */
export function checkTenantAccess(principal: Principal, tenantId: number): void {
  const mainAdmin = principal.tenantId === MAIN_TENANT_ID && (principal.kind === 'root' || principal.kind === 'tenant-admin');
  const ownAdmin = principal.tenantId === tenantId && (principal.kind === 'root' || principal.kind === 'tenant-admin');
  if (!mainAdmin && !ownAdmin) throw forbidden();
}
