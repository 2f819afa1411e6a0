// What deleting a Role resource does to the vault: nothing under deletionPolicy Retain (the default). The vault has
// no RoleDelete or PolicyDelete, so under Delete every policy of the role is set to deny all operations: the role's
// xtokens, the one in the Secret included, stop working at once. Re-creating the Role restores the policies.
import type { ReconcileDeps } from '../deps.js';
import { RoleSpec, type Role } from '../types/resources.js';
import { revokeAll } from './policies.js';

export async function finalizeRole(deps: ReconcileDeps, obj: Role): Promise<void> {
  const parsed = RoleSpec.safeParse(obj.spec);
  // Without an id this resource never managed a vault role (or lost a name conflict): nothing to revoke.
  if (!parsed.success || obj.status?.roleId === undefined) return;
  const { roleName, deletionPolicy } = parsed.data;
  if (deletionPolicy !== 'Delete') {
    await deps.events.emit(obj, 'Normal', 'RoleRetained', `deletionPolicy Retain: vault role ${roleName} and its policies are kept`);
    return;
  }
  const revoked = await revokeAll(deps, roleName);
  await deps.events.emit(obj, 'Normal', 'RoleRevoked', `deletionPolicy Delete: ${revoked} ${revoked === 1 ? 'policy' : 'policies'} of vault role ${roleName} now deny every operation`);
}
