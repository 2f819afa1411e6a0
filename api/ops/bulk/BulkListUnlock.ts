// POST /v2/BulkListUnlock: a UUID that unlocks the bulk operations for 60 seconds, for this credential and tenant.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';

export const BulkListUnlock = defineOp({
  name: 'BulkListUnlock',
  ...tenantOp('read'),
  input: z.object({}),
  async run({ ctx }) {
    const { unlockuuid } = await ctx.services.unlocks.issue(ctx.principal, ctx.tenantId, ctx.now);
    return { unlockuuid };
  },
});
