// POST /v2/XTokenCreateForUser: a login xtoken that reads its own record only.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TimeInput, UserRef } from '../schemas.js';
import { xtokenExpiry } from './xtokens.js';
import { subjectRow } from '../subject.js';

export const XTokenCreateForUser = defineOp({
  name: 'XTokenCreateForUser',
  access: 'admin',
  effect: 'write',
  input: z.object({ ...UserRef, finaltime: TimeInput.optional(), slidingtime: TimeInput.optional() }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const expiresAt = xtokenExpiry(input, ctx.now, ctx.services.config.xtokenMaxSeconds);
    const xtoken = await ctx.services.credentials.issue('login', ctx.tenantId, { userToken: row.token, expiresAt }, ctx.em);
    return { xtoken, token: row.token, expires: expiresAt };
  },
});
