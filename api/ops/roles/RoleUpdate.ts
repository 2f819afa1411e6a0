// POST /v2/RoleUpdate: renames a role or changes its description or owner mark (kept unless given); main tenant only.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest, Messages } from '../../errors.js';
import { Id, Name, Description, ManagedBy } from './schemas.js';

export const RoleUpdate = defineOp({
  name: 'RoleUpdate',
  access: 'mainTenant',
  kinds: [],
  transaction: 'write',
  input: z.object({ roleid: Id.optional(), rolename: Name.optional(), roledesc: Description.optional(), managedby: ManagedBy.optional() }),
  async run({ input, ctx }) {
    const roles = ctx.services.roles;
    // With an id, `rolename` is the new name; without one, the SDKs use it to name the role.
    if (input.roleid === undefined && input.rolename === undefined) throw badRequest(`${Messages.missing}roleid`);
    const role = await roles.role(ctx.em, { id: input.roleid, name: input.rolename });
    await roles.updateRole(ctx.em, role.roleid, { name: input.roleid !== undefined ? input.rolename : undefined, desc: input.roledesc, managedby: input.managedby });
    ctx.audit.after = { roleid: role.roleid };
    return {};
  },
});
