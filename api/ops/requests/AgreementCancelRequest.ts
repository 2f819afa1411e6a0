// POST /v2/AgreementCancelRequest: asks for consent to a legal basis to be withdrawn (`agreement-withdraw`).
import { requestCreated } from '../../vault/privacy/events.js';
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RequestAnswer } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { Brief } from '../consent/schemas.js';
import { subjectRow } from '../subject.js';
import { notFound, Messages } from '../../errors.js';

export const AgreementCancelRequest = defineOp({
  name: 'AgreementCancelRequest',
  summary: 'Asks for consent to a legal basis to be withdrawn (`agreement-withdraw`)',
  output: RequestAnswer,
  example: { ...ADA, brief: 'marketing-email' },
  ...personOp('write', ['request', 'agreement'], 'own'),
  input: z.object({ ...UserRef, brief: Brief }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    const consent = ctx.services.consent;
    await consent.basis(ctx, input.brief);
    if (!(await ctx.stores.consent.agreement(row.token, input.brief))) throw notFound(Messages.agreementNotFound);
    const { requestuuid, existed } = await ctx.services.requests.open(ctx, row.token, 'agreement-withdraw', { brief: input.brief }, null);
    if (!existed) ctx.event.publish(requestCreated(row.token, requestuuid, 'agreement-withdraw'));
    return { requestuuid, ...(existed ? { result: 'request-exists' } : {}) };
  },
});
