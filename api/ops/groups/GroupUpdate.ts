// POST /v2/GroupUpdate: renames a group or changes its description or type.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { GroupId, GroupName, GroupDesc, GroupType } from './schemas.js';

export const GroupUpdate = defineOp({
  name: 'GroupUpdate',
  summary: 'Renames a group or changes its description or type',
  output: Done,
  example: { groupid: GENERATED.id, groupdesc: 'Customers with an open ticket' },
  ...tenantOp('write'),
  input: z.object({ groupid: GroupId, groupname: GroupName.optional(), groupdesc: GroupDesc.optional(), grouptype: GroupType.optional() }),
  async run({ input, ctx }) {
    const groups = ctx.services.groups;
    const g = await groups.find(ctx, { groupid: input.groupid });
    await groups.update(ctx, g.groupid, { name: input.groupname, desc: input.groupdesc, type: input.grouptype });
    ctx.audit.after = { groupid: g.groupid };
    return {};
  },
});
