// POST /v2/ProcessingActivityCreate: a processing activity of the record of processing (GDPR art. 30).
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Activity, ActivityFields } from './schemas.js';

export const ProcessingActivityCreate = defineOp({
  name: 'ProcessingActivityCreate',
  ...tenantOp('write'),
  input: z.object({ activity: Activity, ...ActivityFields }),
  async run({ input, ctx }) {
    const { activity, ...fields } = input;
    await ctx.services.consent.createActivity(ctx, activity, fields);
    ctx.audit.after = input;
    return {};
  },
});
