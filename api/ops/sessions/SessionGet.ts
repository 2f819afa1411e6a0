// POST /v2/SessionGet: a live session's data.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { UnixTime, Expiry, RecordToken, UuidOut, AnyObject } from '../outputs.js';
import { Uuid } from '../schemas.js';

export const SessionGet = defineOp({
  name: 'SessionGet',
  summary: "A live session's data",
  output: z.object({ sessionuuid: UuidOut, sessiondata: AnyObject, token: RecordToken.optional().meta({ description: 'The person it is linked to, when it is.' }), when: UnixTime, expirationtime: Expiry }),
  example: { sessionuuid: 'd3b07384-d9a0-4c9b-8f3e-1a2b3c4d5e6f' },
  ...tenantOp('read', ['session']),
  input: z.object({ sessionuuid: Uuid }),
  async run({ input, ctx }) {
    const { row, data } = await ctx.services.sessions.get(ctx, input.sessionuuid.toLowerCase());
    if (row.user_token) ctx.audit.record = row.user_token;
    return { sessionuuid: row.sessionuuid, sessiondata: data, ...(row.user_token ? { token: row.user_token } : {}), when: row.updated, expirationtime: row.expires };
  },
});
