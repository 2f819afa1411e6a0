// POST /v2/UserRequestApprove: carries out the requested change and closes the request as approved.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Uuid } from '../schemas.js';
import { judgedUser } from '../subject.js';

export const UserRequestApprove = defineOp({
  name: 'UserRequestApprove',
  summary: 'Carries out the requested change and closes the request as approved',
  output: Done,
  example: { requestuuid: GENERATED.uuid, reason: 'Checked with the customer by phone' },
  ...tenantOp('write', ['request', 'profile', 'appdata', 'agreement']),
  input: z.object({ requestuuid: Uuid, reason: z.string().max(1024).optional() }),
  async run({ input, ctx }) {
    const person = (token: string) => judgedUser(ctx, { mode: 'token', identity: token }, true);
    const { row, events } = await ctx.services.requests.approve(ctx, input.requestuuid, input.reason ?? 'approved', person, ctx.audit);
    // A profile change's event holds the profiles (and the request beside them); other approvals' name the request.
    if (ctx.audit.before === undefined) {
      ctx.audit.after = { requestuuid: row.requestuuid, requesttype: row.requesttype, status: row.status };
      delete ctx.audit.request;
    }
    ctx.event.publish(...events);
    return {};
  },
});
