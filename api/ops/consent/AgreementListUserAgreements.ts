// POST /v2/AgreementListUserAgreements: every agreement of one person.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { page, AgreementOut } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const AgreementListUserAgreements = defineOp({
  name: 'AgreementListUserAgreements',
  summary: 'Every agreement of one person',
  output: page(AgreementOut),
  example: { ...ADA },
  ...personOp('read', ['agreement'], 'own'),
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const rows = await ctx.services.consent.agreementsOf(ctx, row.token);
    return { total: rows.length, rows };
  },
});
