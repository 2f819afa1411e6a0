// POST /v2/GroupListAllGroups: every group of the tenant.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';

export const GroupListAllGroups = defineOp({
  name: 'GroupListAllGroups',
  ...tenantOp('read'),
  input: z.object({}),
  async run({ ctx }) {
    const rows = await ctx.stores.groups.all();
    return { total: rows.length, rows };
  },
});
