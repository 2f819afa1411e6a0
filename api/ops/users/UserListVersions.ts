// POST /v2/UserListVersions: the kept versions of a profile with their time and MD5.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UserRef } from '../schemas.js';

export const UserListVersions = defineOp({
  name: 'UserListVersions',
  access: 'tenant',
  effect: 'read',
  input: z.object(UserRef),
  async run({ input, ctx }) {
    ctx.audit.mode = input.mode;
    ctx.audit.identity = input.identity;
    const row = await ctx.services.users.findRow(ctx, input.mode, input.identity);
    ctx.audit.record = row.token;
    return { versions: await ctx.services.users.versions(ctx, row) };
  },
});
