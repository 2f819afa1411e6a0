// POST /v2/RoleGet: one role by id or name, with its owner mark (`managedby`, when it has one) and the policies
// linked to it; main tenant only. Beyond the DatabunkerPro contract: the operator reads it to tell a role it made
// from one of the same name that someone else made.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { RoleRef, namedRole } from './schemas.js';

export const RoleGet = defineOp({
  name: 'RoleGet',
  summary: 'One role by id or name, with its owner mark and the policies linked to it; main tenant only',
  output: z.object({ roleid: z.number().int(), rolename: z.string(), roledesc: z.string().nullable(), managedby: z.string().optional(), policies: z.array(z.looseObject({ policyid: z.number().int(), policyname: z.string() })) }),
  example: { rolename: 'support' },
  ...mainTenantOp('read'),
  input: z.object(RoleRef),
  async run({ input, ctx }) {
    const role = await namedRole(ctx, input);
    const policies = await ctx.stores.roles.policiesOf(role.roleid);
    return { roleid: role.roleid, rolename: role.rolename, roledesc: role.roledesc, ...(role.managedby !== null && { managedby: role.managedby }), policies };
  },
});
