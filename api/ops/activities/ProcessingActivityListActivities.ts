// POST /v2/ProcessingActivityListActivities: every activity with the legal bases it relies on.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { UnixTime, page } from '../outputs.js';

export const ProcessingActivityListActivities = defineOp({
  name: 'ProcessingActivityListActivities',
  summary: 'Every activity with the legal bases it relies on',
  output: page(z.object({ activity: z.string(), title: z.string().nullable(), script: z.string().nullable(), fulldesc: z.string().nullable(), applicableto: z.string().nullable(), legalbasis: z.array(z.string()).meta({ description: 'The briefs of the legal bases it relies on.' }), creationtime: UnixTime })),
  example: {},
  ...tenantOp('read'),
  housekeeping: true,
  input: z.object({}),
  async run({ ctx }) {
    const rows = await ctx.stores.consent.activities();
    return { total: rows.length, rows };
  },
});
