// Groups of a tenant: named sets of users, each membership with an optional role.
import { z } from 'zod';
import type { Stores } from '../store/stores.js';
import type { GroupRow } from '../store/groups.js';
import { forbidden, notFound, Messages } from '../errors.js';
import type { Principal } from './credentials.js';
import type { Roles } from './roles.js';
import { conflictOnUnique } from '../store/errors.js';

/** `groupname`/`groupid` and `rolename`/`roleid`, as UserCreate, UserCreateBulk and GroupAddUser take them. */
export const GroupRef = {
  groupname: z.string().min(1).optional(),
  groupid: z.number().int().optional(),
  rolename: z.string().min(1).optional(),
  roleid: z.number().int().optional(),
};

export interface GroupScope {
  stores: Stores;
  tenantId: number;
}


export class Groups {
  constructor(private readonly roles: Roles) {}


  async create(scope: GroupScope, name: string, desc: string, type: string, now: number): Promise<number> {
    return await conflictOnUnique(Messages.duplicateGroup, () => scope.stores.groups.create(name, desc, type, now));
  }

  async find(scope: GroupScope, by: { groupid?: number | undefined; groupname?: string | undefined }): Promise<GroupRow> {
    const g = await scope.stores.groups.find({ id: by.groupid, name: by.groupname });
    if (!g) throw notFound(Messages.groupNotFound);
    return g;
  }

  async update(scope: GroupScope, id: number, set: { name?: string | undefined; desc?: string | undefined; type?: string | undefined }): Promise<void> {
    await conflictOnUnique(Messages.duplicateGroup, () => scope.stores.groups.update(id, set));
  }

  /**
   * The group and role a request names (either may be absent), or 404 for a name that does not exist.
   * A role without a group is meaningless and refused. Giving a membership a role is for admins (root, tenant
   * admin): a role's policies then apply to the member's login xtoken, so a role or login xtoken that may add
   * members would otherwise hand out any role, wider than its own (403 `Access denied`, as admin operations answer).
   */
  async membership(
    scope: GroupScope & { principal: Pick<Principal, 'kind'> },
    ref: { groupname?: string | undefined; groupid?: number | undefined; rolename?: string | undefined; roleid?: number | undefined },
  ): Promise<{ groupId: number; roleId: number | null } | null> {
    const hasGroup = ref.groupname !== undefined || ref.groupid !== undefined;
    const hasRole = ref.rolename !== undefined || ref.roleid !== undefined;
    if (!hasGroup) {
      if (hasRole) throw notFound(Messages.groupNotFound);
      return null;
    }
    if (hasRole && scope.principal.kind !== 'root' && scope.principal.kind !== 'tenant-admin') throw forbidden();
    const group = await this.find(scope, ref);
    const role = hasRole ? await this.roles.role(scope.stores, { id: ref.roleid, name: ref.rolename }) : null;
    return { groupId: group.groupid, roleId: role?.roleid ?? null };
  }
}
