// POST /v2/BulkListUnlock: a UUID that unlocks the bulk operations for 60 seconds, for this credential and tenant.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { UuidOut } from '../outputs.js';

export const BulkListUnlock = defineOp({
  name: 'BulkListUnlock',
  summary: 'A UUID that unlocks the bulk operations for 60 seconds, for this credential and tenant',
  output: z.object({ unlockuuid: UuidOut.meta({ description: 'Send it as `unlockuuid` to the bulk operations within 60 seconds.' }) }),
  example: {},
  ...tenantOp('read'),
  input: z.object({}),
  async run({ ctx }) {
    const { unlockuuid } = await ctx.services.unlocks.issue(ctx.principal, ctx.tenantId, ctx.now);
    return { unlockuuid };
  },
});
