// POST /v2/PolicyListAllPolicies: every policy, without documents.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { page } from '../outputs.js';

export const PolicyListAllPolicies = defineOp({
  name: 'PolicyListAllPolicies',
  summary: 'Every policy, without documents',
  output: page(z.object({ policyid: z.number().int(), policyname: z.string(), policydesc: z.string().nullable(), managedby: z.string().optional() })),
  example: {},
  ...mainTenantOp('read'),
  input: z.object({}),
  async run({ ctx }) {
    const rows = await ctx.stores.roles.policies();
    return { total: rows.length, rows };
  },
});
