// POST /v2/GroupDeleteUser: removes a user from a group.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { badRequest, notFound, Messages } from '../../errors.js';
import { GroupPick } from './schemas.js';
import { subjectRow } from '../subject.js';

export const GroupDeleteUser = defineOp({
  name: 'GroupDeleteUser',
  summary: 'Removes a user from a group',
  output: Done,
  example: { ...ADA, groupname: 'support' },
  ...personOp('write', ['group']),
  input: z.object({ ...UserRef, ...GroupPick }),
  async run({ input, ctx }) {
    if (input.groupid === undefined && input.groupname === undefined) throw badRequest(`${Messages.missing}groupid`);
    const row = await subjectRow(ctx, input, true);
    const groups = ctx.services.groups;
    const g = await groups.find(ctx, input);
    if (!(await ctx.stores.groups.removeMember(g.groupid, row.token))) throw notFound(Messages.notMember);
    ctx.audit.after = { groupid: g.groupid };
    return {};
  },
});
