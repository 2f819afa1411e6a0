// POST /v2/BulkListAllAuditEvents: the tenant's audit trail, newest first, paginated, behind the unlock UUID. The
// console's housekeeping calls (ops/housekeeping.ts) are left out unless `includehousekeeping` is true.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { page, AuditEvent } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Offset, Limit, pageOf } from '../schemas.js';

export const BulkListAllAuditEvents = defineOp({
  name: 'BulkListAllAuditEvents',
  summary: "The tenant's audit trail, newest first, paginated, behind the unlock UUID",
  output: page(AuditEvent),
  example: { unlockuuid: GENERATED.unlockuuid, offset: 0, limit: 10 },
  ...tenantOp('read', ['audit']),
  input: z.object({ unlockuuid: z.string(), offset: Offset, limit: Limit, includehousekeeping: z.boolean().optional() }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    return ctx.services.auditReader.listAll(ctx.stores, { offset, limit, housekeeping: input.includehousekeeping === true });
  },
});
