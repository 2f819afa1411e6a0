// POST /v2/GroupCreate: a named group of users in this tenant.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { GroupName, GroupDesc, GroupType } from './schemas.js';

export const GroupCreate = defineOp({
  name: 'GroupCreate',
  summary: 'A named group of users in this tenant',
  output: z.object({ groupid: z.number().int() }),
  example: { groupname: 'support', groupdesc: 'People the support team helps', grouptype: 'team' },
  ...tenantOp('write'),
  input: z.object({ groupname: GroupName, groupdesc: GroupDesc.optional(), grouptype: GroupType.optional() }),
  async run({ input, ctx }) {
    const groupid = await ctx.services.groups.create(ctx, input.groupname, input.groupdesc ?? '', input.grouptype ?? 'users', ctx.now);
    ctx.audit.after = { groupid, groupname: input.groupname };
    return { groupid };
  },
});
