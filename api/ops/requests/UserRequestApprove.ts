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
    const { row, events, profile } = await ctx.services.requests.approve(ctx, input.requestuuid, input.reason ?? 'approved', person);
    ctx.audit.record = row.user_token;
    const request = { requestuuid: row.requestuuid, requesttype: row.requesttype, status: row.status };
    // A profile's change is noted as UserUpdate notes one: the profile before and after (sealed, under the person's key).
    if (profile) ctx.audit.before = { profile: profile.before };
    ctx.audit.after = profile ? { ...request, profile: profile.after } : request;
    ctx.event.publish(...events);
    return {};
  },
});
