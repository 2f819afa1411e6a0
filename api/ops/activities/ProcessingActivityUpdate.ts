// POST /v2/ProcessingActivityUpdate: changes the fields sent; `newactivity` renames.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { Activity, ActivityFields } from './schemas.js';

export const ProcessingActivityUpdate = defineOp({
  name: 'ProcessingActivityUpdate',
  summary: 'Changes the fields sent; `newactivity` renames',
  output: Done,
  example: { activity: 'newsletter', title: 'Sending the monthly newsletter' },
  ...tenantOp('write'),
  input: z.object({ activity: Activity, newactivity: Activity.optional(), ...ActivityFields }),
  async run({ input, ctx }) {
    const { activity, newactivity, ...fields } = input;
    await ctx.services.consent.updateActivity(ctx, activity, { ...fields, activity: newactivity });
    ctx.audit.after = input;
    return {};
  },
});
