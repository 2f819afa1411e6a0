// POST /v2/RoleCreate: a role that xtokens can carry; main tenant only.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Name, Description } from './schemas.js';

export const RoleCreate = defineOp({
  name: 'RoleCreate',
  access: 'mainTenant',
  effect: 'write',
  input: z.object({ rolename: Name, roledesc: Description.optional() }),
  async run({ input, ctx }) {
    const roleid = await ctx.services.roles.createRole(ctx.em, input.rolename, input.roledesc ?? '', ctx.now);
    ctx.audit.after = { roleid, rolename: input.rolename };
    return { roleid };
  },
});
