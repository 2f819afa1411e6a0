// POST /v2/UserRequestApprove: carries out the requested change and closes the request as approved.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Uuid } from '../schemas.js';

export const UserRequestApprove = defineOp({
  name: 'UserRequestApprove',
  access: 'tenant',
  kinds: ['request', 'profile', 'appdata', 'agreement'],
  transaction: 'write',
  input: z.object({ requestuuid: Uuid, reason: z.string().max(1024).optional() }),
  async run({ input, ctx }) {
    const row = await ctx.services.requests.approve(ctx, input.requestuuid, input.reason ?? 'approved');
    ctx.audit.record = row.user_token;
    ctx.audit.after = { requestuuid: row.requestuuid, requesttype: row.requesttype, status: row.status };
    return {};
  },
});
