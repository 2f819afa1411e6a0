// POST /v2/UserDelete: erases the profile, its indexes and its versions. The audit trail keeps no copy.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UserRef } from '../schemas.js';

export const UserDelete = defineOp({
  name: 'UserDelete',
  access: 'tenant',
  effect: 'write',
  input: z.object(UserRef),
  async run({ input, ctx }) {
    ctx.audit.mode = input.mode;
    ctx.audit.identity = input.identity;
    const row = await ctx.services.users.findRow(ctx, input.mode, input.identity, true);
    ctx.audit.record = row.token;
    await ctx.services.users.remove(ctx, row.token);
    return {};
  },
});
