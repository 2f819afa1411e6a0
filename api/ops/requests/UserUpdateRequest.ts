// POST /v2/UserUpdateRequest: proposes a merge into the profile (`change-profile`), pending approval.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Profile, UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const UserUpdateRequest = defineOp({
  name: 'UserUpdateRequest',
  access: 'tenant',
  login: 'own',
  kinds: ['request', 'profile'],
  judges: 'person',
  transaction: 'write',
  input: z.object({ ...UserRef, profile: Profile }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    const { requestuuid, existed } = await ctx.services.requests.open(ctx, row.token, 'change-profile', {}, { profile: input.profile });
    ctx.audit.after = input.profile;
    return { requestuuid, ...(existed ? { result: 'request-exists' } : {}) };
  },
});
