// POST /v2/BulkListAllAuditEvents: the tenant's audit trail, newest first, paginated, behind the unlock UUID.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Offset, Limit, pageOf } from '../schemas.js';

export const BulkListAllAuditEvents = defineOp({
  name: 'BulkListAllAuditEvents',
  ...tenantOp('read', ['audit']),
  input: z.object({ unlockuuid: z.string(), offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    return ctx.services.auditReader.listAll(ctx.stores, offset, limit);
  },
});
