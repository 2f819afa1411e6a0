// POST /v2/RoleListAllRoles: a page of every role, each with its owner mark (`managedby`, when it has one) and the
// policies linked to it; main tenant only. Beyond the DatabunkerPro contract: without it a role made by the API
// could be found only by its exact name.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { Limit, Offset, pageOf } from '../schemas.js';
import { page } from '../outputs.js';

export const RoleListAllRoles = defineOp({
  name: 'RoleListAllRoles',
  summary: 'A page of every role, with its owner mark and linked policies; main tenant only',
  output: page(z.object({ roleid: z.number().int(), rolename: z.string(), roledesc: z.string().nullable(), managedby: z.string().optional(), policies: z.array(z.object({ policyid: z.number().int(), policyname: z.string() })) })),
  example: { offset: 0, limit: 20 },
  ...mainTenantOp('read'),
  input: z.object({ offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    const { total, rows } = await ctx.stores.roles.roles(offset, limit);
    return { total, rows: rows.map(({ managedby, ...r }) => ({ ...r, ...(managedby !== null && { managedby }) })) };
  },
});
