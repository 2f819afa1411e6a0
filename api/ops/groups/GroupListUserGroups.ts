// POST /v2/GroupListUserGroups: the groups one user belongs to.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UserRef } from '../schemas.js';

export const GroupListUserGroups = defineOp({
  name: 'GroupListUserGroups',
  access: 'tenant',
  effect: 'read',
  input: z.object(UserRef),
  async run({ input, ctx }) {
    ctx.audit.mode = input.mode;
    ctx.audit.identity = input.identity;
    const row = await ctx.services.users.findRow(ctx, input.mode, input.identity);
    ctx.audit.record = row.token;
    const rows = await ctx.services.groups.store(ctx).groupsOf(row.token);
    return { total: rows.length, rows: rows.map(({ groupid, groupname, groupdesc }) => ({ groupid, groupname, groupdesc })) };
  },
});
