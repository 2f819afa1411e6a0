// What deleting a Role resource does to the vault: nothing under deletionPolicy Retain (the default); under Delete
// the role's policies and the role go, and with the role every xtoken issued for it, the one in the Secret too. Only
// what carries this resource's owner mark is deleted: a role of that name made by anyone else stays as it is.
import type { ReconcileDeps } from '../deps.js';
import { RoleSpec, type Role } from '../types/resources.js';
import { owns } from './ownership.js';
import { deletePolicies } from './policies.js';

export async function finalizeRole(deps: ReconcileDeps, obj: Role): Promise<void> {
  const parsed = RoleSpec.safeParse(obj.spec);
  // Without a valid spec there is no name it could manage. Whether it manages the role is the vault's mark, never
  // what its status says.
  if (!parsed.success) return;
  const { roleName, deletionPolicy } = parsed.data;
  if (deletionPolicy !== 'Delete') {
    await deps.events.emit(obj, 'Normal', 'RoleRetained', `deletionPolicy Retain: vault role ${roleName} and its policies are kept`);
    return;
  }
  const role = await deps.vault.roleGet(roleName);
  const policies = await deletePolicies(deps, obj, roleName);
  const counted = `${policies} ${policies === 1 ? 'policy' : 'policies'}`;
  if (role && owns(obj, role)) {
    await deps.vault.roleDelete(role.roleid);
    await deps.events.emit(obj, 'Normal', 'RoleDeleted', `deletionPolicy Delete: vault role ${roleName}, its ${counted} and its xtokens are deleted`);
  } else if (role) {
    await deps.events.emit(obj, 'Normal', 'RoleRetained', `deletionPolicy Delete: vault role ${roleName} is not managed by this Role, so it is kept; ${counted} of this Role deleted`);
  } else {
    await deps.events.emit(obj, 'Normal', 'RoleDeleted', `deletionPolicy Delete: vault role ${roleName} was already gone; ${counted} of this Role deleted`);
  }
}
