// What deleting a Role resource does to the vault: nothing under deletionPolicy Retain (the default); under Delete
// the role's policies and the role go, and with the role every xtoken issued for it, the one in the Secret too.
import type { ReconcileDeps } from '../deps.js';
import { RoleSpec, type Role } from '../types/resources.js';
import { deletePolicies } from './policies.js';

export async function finalizeRole(deps: ReconcileDeps, obj: Role): Promise<void> {
  const parsed = RoleSpec.safeParse(obj.spec);
  // Without an id this resource never managed a vault role (or lost a name conflict): nothing to delete.
  if (!parsed.success || obj.status?.roleId === undefined) return;
  const { roleName, deletionPolicy } = parsed.data;
  if (deletionPolicy !== 'Delete') {
    await deps.events.emit(obj, 'Normal', 'RoleRetained', `deletionPolicy Retain: vault role ${roleName} and its policies are kept`);
    return;
  }
  const policies = await deletePolicies(deps, roleName);
  await deps.vault.roleDelete(roleName);
  await deps.events.emit(obj, 'Normal', 'RoleDeleted', `deletionPolicy Delete: vault role ${roleName}, its ${policies} ${policies === 1 ? 'policy' : 'policies'} and its xtokens are deleted`);
}
