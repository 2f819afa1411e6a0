// POST /v2/AgreementCancel: withdraws a person's consent to a legal basis.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { Brief } from './schemas.js';
import { subjectRow } from '../subject.js';

export const AgreementCancel = defineOp({
  name: 'AgreementCancel',
  summary: "Withdraws a person's consent to a legal basis",
  output: Done,
  example: { ...ADA, brief: 'marketing-email' },
  ...personOp('write', ['agreement']),
  input: z.object({ ...UserRef, brief: Brief }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    const before = await ctx.services.consent.cancel(ctx, row.token, input.brief);
    ctx.audit.before = { brief: input.brief, status: before };
    ctx.audit.after = { brief: input.brief, status: 'canceled' };
    ctx.event.publish({ type: 'consent.withdrawn', person: row.token, data: { brief: input.brief } });
    return {};
  },
});
