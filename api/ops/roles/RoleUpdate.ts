// POST /v2/RoleUpdate: renames a role or changes its description or owner mark (kept unless given); main tenant only.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { Id, Name, Description, ManagedBy, namedRole } from './schemas.js';

export const RoleUpdate = defineOp({
  name: 'RoleUpdate',
  summary: 'Renames a role or changes its description or owner mark (kept unless given); main tenant only',
  output: Done,
  example: { rolename: 'support', roledesc: 'The support team, first line' },
  ...mainTenantOp('write'),
  input: z.object({ roleid: Id.optional(), rolename: Name.optional(), roledesc: Description.optional(), managedby: ManagedBy.optional() }),
  async run({ input, ctx }) {
    const roles = ctx.services.roles;
    // With an id, `rolename` is the new name; without one, the SDKs use it to name the role.
    const role = await namedRole(ctx, input);
    await roles.updateRole(ctx.stores, role.roleid, { name: input.roleid !== undefined ? input.rolename : undefined, desc: input.roledesc, managedby: input.managedby });
    ctx.audit.after = { roleid: role.roleid };
    return {};
  },
});
