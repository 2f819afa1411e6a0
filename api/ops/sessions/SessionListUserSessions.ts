// POST /v2/SessionListUserSessions: a person's live sessions.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { UnixTime, Expiry, UuidOut, AnyObject, page } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const SessionListUserSessions = defineOp({
  name: 'SessionListUserSessions',
  summary: "A person's live sessions",
  output: page(z.object({ sessionuuid: UuidOut, sessiondata: AnyObject, when: UnixTime, expirationtime: Expiry })),
  example: { ...ADA },
  ...personOp('read', ['session'], 'own'),
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const sessions = await ctx.services.sessions.ofUser(ctx, row.token);
    const rows = sessions.map((s) => ({ sessionuuid: s.row.sessionuuid, sessiondata: s.data, when: s.row.updated, expirationtime: s.row.expires }));
    return { total: rows.length, rows };
  },
});
