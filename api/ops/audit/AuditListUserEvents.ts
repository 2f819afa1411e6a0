// POST /v2/AuditListUserEvents: a user's audit events, newest first, paginated.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Limit, Offset, UserRef, pageOf } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const AuditListUserEvents = defineOp({
  name: 'AuditListUserEvents',
  access: 'tenant',
  login: 'own',
  kinds: ['audit'],
  judges: 'person',
  transaction: 'read',
  input: z.object({ ...UserRef, offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    return ctx.services.auditReader.listForRecord(ctx.stores, row.token, offset, limit);
  },
});
