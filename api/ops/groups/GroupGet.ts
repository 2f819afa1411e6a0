// POST /v2/GroupGet: one group by id or name.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest, Messages } from '../../errors.js';
import { GroupPick } from './schemas.js';

export const GroupGet = defineOp({
  name: 'GroupGet',
  access: 'tenant',
  kinds: [],
  transaction: 'read',
  input: z.object(GroupPick),
  async run({ input, ctx }) {
    if (input.groupid === undefined && input.groupname === undefined) throw badRequest(`${Messages.missing}groupid`);
    return { ...(await ctx.services.groups.find(ctx, input)) };
  },
});
