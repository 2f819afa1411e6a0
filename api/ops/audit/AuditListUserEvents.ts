// POST /v2/AuditListUserEvents: a user's audit events, newest first, paginated.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Limit, Offset, UserRef, pageOf } from '../schemas.js';

export const AuditListUserEvents = defineOp({
  name: 'AuditListUserEvents',
  access: 'tenant',
  effect: 'read',
  input: z.object({ ...UserRef, offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    ctx.audit.mode = input.mode;
    ctx.audit.identity = input.identity;
    const row = await ctx.services.users.findRow(ctx, input.mode, input.identity);
    ctx.audit.record = row.token;
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    return ctx.services.auditReader.listForRecord(ctx.em, ctx.tenantId, row.token, offset, limit);
  },
});
