// POST /v2/RoleCreate: a role that xtokens can carry, optionally with an owner mark (`managedby`); main tenant only.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { Name, Description, ManagedBy } from './schemas.js';

export const RoleCreate = defineOp({
  name: 'RoleCreate',
  summary: 'A role that xtokens can carry, optionally with an owner mark (`managedby`); main tenant only',
  output: z.object({ roleid: z.number().int() }),
  example: { rolename: 'support', roledesc: 'The support team' },
  ...mainTenantOp('write'),
  input: z.object({ rolename: Name, roledesc: Description.optional(), managedby: ManagedBy.optional() }),
  async run({ input, ctx }) {
    const roleid = await ctx.services.roles.createRole(ctx.stores, input.rolename, input.roledesc ?? '', input.managedby, ctx.now);
    ctx.audit.after = { roleid, rolename: input.rolename };
    return { roleid };
  },
});
