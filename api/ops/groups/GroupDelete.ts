// POST /v2/GroupDelete: removes a group and its memberships (never its users).
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { badRequest, Messages } from '../../errors.js';
import { GroupPick } from './schemas.js';

export const GroupDelete = defineOp({
  name: 'GroupDelete',
  summary: 'Removes a group and its memberships (never its users)',
  output: Done,
  example: { groupname: 'support' },
  ...tenantOp('write'),
  input: z.object(GroupPick),
  async run({ input, ctx }) {
    if (input.groupid === undefined && input.groupname === undefined) throw badRequest(`${Messages.missing}groupid`);
    const groups = ctx.services.groups;
    const g = await groups.find(ctx, input);
    await ctx.stores.groups.remove(g.groupid);
    ctx.audit.after = { groupid: g.groupid };
    return {};
  },
});
