// POST /v2/AuditListUserEvents: a user's audit events, newest first, paginated.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { page, AuditEvent } from '../outputs.js';
import { ADA } from '../examples.js';
import { Limit, Offset, UserRef, pageOf } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const AuditListUserEvents = defineOp({
  name: 'AuditListUserEvents',
  summary: "A user's audit events, newest first, paginated",
  output: page(AuditEvent),
  example: { ...ADA, offset: 0, limit: 10 },
  ...personOp('read', ['audit'], 'own'),
  input: z.object({ ...UserRef, offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    return ctx.services.auditReader.listForRecord(ctx.stores, row.token, offset, limit);
  },
});
