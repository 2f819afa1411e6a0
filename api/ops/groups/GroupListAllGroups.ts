// POST /v2/GroupListAllGroups: every group of the tenant.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const GroupListAllGroups = defineOp({
  name: 'GroupListAllGroups',
  access: 'tenant',
  kinds: [],
  transaction: 'read',
  housekeeping: true,
  input: z.object({}),
  async run({ ctx }) {
    const rows = await ctx.stores.groups.all();
    return { total: rows.length, rows };
  },
});
