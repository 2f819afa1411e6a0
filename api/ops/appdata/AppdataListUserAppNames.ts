// POST /v2/AppdataListUserAppNames: the apps one user has records for.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const AppdataListUserAppNames = defineOp({
  name: 'AppdataListUserAppNames',
  access: 'tenant',
  login: 'own',
  kinds: ['appdata'],
  judges: 'person',
  transaction: 'read',
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    return { apps: await ctx.stores.appdata.userAppNames(row.token) };
  },
});
