// POST /v2/UserUpdateRequest: proposes a merge into the profile (`change-profile`), pending approval.
import { requestCreated } from '../../vault/privacy/events.js';
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RequestAnswer } from '../outputs.js';
import { ADA } from '../examples.js';
import { Profile, UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const UserUpdateRequest = defineOp({
  name: 'UserUpdateRequest',
  summary: 'Proposes a merge into the profile (`change-profile`), pending approval',
  output: RequestAnswer,
  example: { ...ADA, profile: { phone: '+442079460019' } },
  ...personOp('write', ['request', 'profile'], 'own'),
  input: z.object({ ...UserRef, profile: Profile }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    const { requestuuid, existed, hash, bytes } = await ctx.services.requests.open(ctx, row.token, 'change-profile', {}, { profile: input.profile });
    if (!existed) ctx.event.publish(requestCreated(row.token, requestuuid, 'change-profile'));
    // The change is sealed in the request; its event keeps only its keyed hash and size.
    ctx.audit.after = { requestuuid, change: { hash, bytes } };
    return { requestuuid, ...(existed ? { result: 'request-exists' } : {}) };
  },
});
