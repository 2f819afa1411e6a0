// POST /v2/UserDeleteRequest: asks for the person's record to be erased (`forget-me`), pending approval.
import { requestCreated } from '../../vault/privacy/events.js';
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RequestAnswer } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const UserDeleteRequest = defineOp({
  name: 'UserDeleteRequest',
  summary: "Asks for the person's record to be erased (`forget-me`), pending approval",
  output: RequestAnswer,
  example: { ...ADA },
  ...personOp('write', ['request', 'profile'], 'own'),
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    const { requestuuid, existed } = await ctx.services.requests.open(ctx, row.token, 'forget-me', {}, null);
    if (!existed) ctx.event.publish(requestCreated(row.token, requestuuid, 'forget-me'));
    return { requestuuid, ...(existed ? { result: 'request-exists' } : {}) };
  },
});
