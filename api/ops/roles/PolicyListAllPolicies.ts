// POST /v2/PolicyListAllPolicies: every policy, without documents.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';

export const PolicyListAllPolicies = defineOp({
  name: 'PolicyListAllPolicies',
  ...mainTenantOp('read'),
  input: z.object({}),
  async run({ ctx }) {
    const rows = await ctx.stores.roles.policies();
    return { total: rows.length, rows };
  },
});
