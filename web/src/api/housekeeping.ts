// Which of the console's calls are its own housekeeping (no imports but types: the tests read it too).
import type { OperationName } from './requests.gen.js';

/**
 * The console's own reads about the vault itself (its tenants, policies, roles, legal bases, groups, counts): marked
 * `X-Strongroom-Purpose: housekeeping`, so that the audit list leaves them out unless asked. The API honours the mark
 * only on operations it allows (api/ops/housekeeping.ts); this list is a subset of those, and holds no read of a
 * person.
 */
export const HOUSEKEEPING: ReadonlySet<OperationName> = new Set<OperationName>([
  'TenantListTenants',
  'PolicyListAllPolicies',
  'RoleGet',
  'RoleListAllRoles',
  'XTokenListForRole',
  'LegalBasisListAgreements',
  'GroupListAllGroups',
  'ProcessingActivityListActivities',
  'AppdataListAppNames',
  'SystemGetSystemStats',
  'SystemGetOverview',
]);
