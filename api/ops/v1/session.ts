// The operation behind GET /v1/session/session/{session}: a session's data in v1's shape.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { UnixTime, UuidOut, AnyObject } from '../outputs.js';

/** v1 session: SessionGet answering `session`, `when` and `data`. */
export const V1SessionGet = defineOp({
  name: 'SessionGet',
  summary: "GET /v1/session/session/{session}: a session's data in v1's shape",
  output: z.object({ session: UuidOut, when: UnixTime, data: AnyObject }),
  example: { sessionuuid: 'd3b07384-d9a0-4c9b-8f3e-1a2b3c4d5e6f' },
  ...tenantOp('read', ['session']),
  input: z.object({ sessionuuid: z.string() }),
  async run({ input, ctx }) {
    const { row, data } = await ctx.services.sessions.get(ctx, input.sessionuuid);
    if (row.user_token) ctx.audit.record = row.user_token;
    return { session: row.sessionuuid, when: row.updated, data };
  },
});
