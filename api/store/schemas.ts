// Where data lives: the global schema, and one schema per tenant (the main tenant is 1).

/** The schema of what belongs to no tenant: tenants, credentials, roles and policies, unlocks, settings. */
export const GLOBAL_SCHEMA = 'strongroom';
export const MAIN_TENANT_ID = 1;
export const MAIN_TENANT_NAME = 'main';

export function tenantSchema(tenantId: number): string {
  return `tenant_${tenantId}`;
}
