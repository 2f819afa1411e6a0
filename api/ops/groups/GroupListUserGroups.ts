// POST /v2/GroupListUserGroups: the groups one user belongs to.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { page, GroupOut } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const GroupListUserGroups = defineOp({
  name: 'GroupListUserGroups',
  summary: 'The groups one user belongs to',
  output: page(GroupOut.omit({ grouptype: true })),
  example: { ...ADA },
  ...personOp('read', ['group']),
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const rows = await ctx.stores.groups.groupsOf(row.token);
    return { total: rows.length, rows: rows.map(({ groupid, groupname, groupdesc }) => ({ groupid, groupname, groupdesc })) };
  },
});
