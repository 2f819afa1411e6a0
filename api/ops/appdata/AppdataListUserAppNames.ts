// POST /v2/AppdataListUserAppNames: the apps one user has records for.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UserRef } from '../schemas.js';

export const AppdataListUserAppNames = defineOp({
  name: 'AppdataListUserAppNames',
  access: 'tenant',
  effect: 'read',
  input: z.object(UserRef),
  async run({ input, ctx }) {
    ctx.audit.mode = input.mode;
    ctx.audit.identity = input.identity;
    const row = await ctx.services.users.findRow(ctx, input.mode, input.identity);
    ctx.audit.record = row.token;
    return { apps: await ctx.services.appdata.store(ctx).userAppNames(row.token) };
  },
});
