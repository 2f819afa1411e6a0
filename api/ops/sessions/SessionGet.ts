// POST /v2/SessionGet: a live session's data.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Uuid } from '../schemas.js';

export const SessionGet = defineOp({
  name: 'SessionGet',
  ...tenantOp('read', ['session']),
  input: z.object({ sessionuuid: Uuid }),
  async run({ input, ctx }) {
    const { row, data } = await ctx.services.sessions.get(ctx, input.sessionuuid.toLowerCase());
    if (row.user_token) ctx.audit.record = row.user_token;
    return { sessionuuid: row.sessionuuid, sessiondata: data, ...(row.user_token ? { token: row.user_token } : {}), when: row.updated, expirationtime: row.expires };
  },
});
