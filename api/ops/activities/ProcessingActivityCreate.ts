// POST /v2/ProcessingActivityCreate: a processing activity of the record of processing (GDPR art. 30).
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { Activity, ActivityFields } from './schemas.js';

export const ProcessingActivityCreate = defineOp({
  name: 'ProcessingActivityCreate',
  summary: 'A processing activity of the record of processing (GDPR art. 30)',
  output: Done,
  example: { activity: 'newsletter', title: 'Sending the newsletter', script: 'A monthly email to subscribers', applicableto: 'customers' },
  ...tenantOp('write'),
  input: z.object({ activity: Activity, ...ActivityFields }),
  async run({ input, ctx }) {
    const { activity, ...fields } = input;
    await ctx.services.consent.createActivity(ctx, activity, fields);
    ctx.audit.after = input;
    return {};
  },
});
