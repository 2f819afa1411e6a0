// POST /v2/AgreementGet: one person's agreement to one legal basis.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { AgreementOut } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { Brief } from './schemas.js';
import { subjectRow } from '../subject.js';

export const AgreementGet = defineOp({
  name: 'AgreementGet',
  summary: "One person's agreement to one legal basis",
  output: z.object({ agreement: AgreementOut }),
  example: { ...ADA, brief: 'marketing-email' },
  ...personOp('read', ['agreement'], 'own'),
  input: z.object({ ...UserRef, brief: Brief }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    return { agreement: await ctx.services.consent.agreement(ctx, row.token, input.brief) };
  },
});
