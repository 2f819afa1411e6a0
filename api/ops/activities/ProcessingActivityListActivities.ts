// POST /v2/ProcessingActivityListActivities: every activity with the legal bases it relies on.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const ProcessingActivityListActivities = defineOp({
  name: 'ProcessingActivityListActivities',
  access: 'tenant',
  kinds: [],
  transaction: 'read',
  housekeeping: true,
  input: z.object({}),
  async run({ ctx }) {
    const rows = await ctx.stores.consent.activities();
    return { total: rows.length, rows };
  },
});
