// POST /v2/UserRequestCancel: closes an open request without carrying it out (admin, or its own person).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Done } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Uuid } from '../schemas.js';

export const UserRequestCancel = defineOp({
  name: 'UserRequestCancel',
  summary: 'Closes an open request without carrying it out (admin, or its own person)',
  output: Done,
  example: { requestuuid: GENERATED.uuid, reason: 'Asked twice' },
  access: 'tenant',
  login: 'own',
  kinds: ['request'],
  transaction: 'write',
  input: z.object({ requestuuid: Uuid, reason: z.string().max(1024).optional() }),
  async run({ input, ctx }) {
    const row = await ctx.services.requests.cancel(ctx, input.requestuuid, input.reason ?? 'user operation');
    ctx.audit.record = row.user_token;
    ctx.audit.after = { requestuuid: row.requestuuid, status: row.status, reason: row.reason };
    ctx.event.publish({ type: 'request.rejected', person: row.user_token, data: { request: row.requestuuid, action: row.requesttype } });
    return {};
  },
});
