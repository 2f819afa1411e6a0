// POST /v2/GroupListAllGroups: every group of the tenant.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { page, GroupOut } from '../outputs.js';

export const GroupListAllGroups = defineOp({
  name: 'GroupListAllGroups',
  summary: 'Every group of the tenant',
  output: page(GroupOut),
  example: {},
  ...tenantOp('read'),
  housekeeping: true,
  input: z.object({}),
  async run({ ctx }) {
    const rows = await ctx.stores.groups.all();
    return { total: rows.length, rows };
  },
});
