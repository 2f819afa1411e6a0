// POST /v2/AppdataListUserAppNames: the apps one user has records for.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const AppdataListUserAppNames = defineOp({
  name: 'AppdataListUserAppNames',
  ...personOp('read', ['appdata'], 'own'),
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    return { apps: await ctx.stores.appdata.userAppNames(row.token) };
  },
});
