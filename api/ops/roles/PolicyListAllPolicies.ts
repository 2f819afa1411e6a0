// POST /v2/PolicyListAllPolicies: every policy, without documents.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const PolicyListAllPolicies = defineOp({
  name: 'PolicyListAllPolicies',
  access: 'mainTenant',
  kinds: [],
  transaction: 'read',
  input: z.object({}),
  async run({ ctx }) {
    const rows = await ctx.stores.roles.policies();
    return { total: rows.length, rows };
  },
});
