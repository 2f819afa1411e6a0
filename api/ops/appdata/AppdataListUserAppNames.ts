// POST /v2/AppdataListUserAppNames: the apps one user has records for.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const AppdataListUserAppNames = defineOp({
  name: 'AppdataListUserAppNames',
  summary: 'The apps one user has records for',
  output: z.object({ apps: z.array(z.string()) }),
  example: { ...ADA },
  ...personOp('read', ['appdata'], 'own'),
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    return { apps: await ctx.stores.appdata.userAppNames(row.token) };
  },
});
