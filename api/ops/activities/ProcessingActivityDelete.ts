// POST /v2/ProcessingActivityDelete: removes an activity and its links to legal bases.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { Activity } from './schemas.js';
import { notFound, Messages } from '../../errors.js';

export const ProcessingActivityDelete = defineOp({
  name: 'ProcessingActivityDelete',
  summary: 'Removes an activity and its links to legal bases',
  output: Done,
  example: { activity: 'newsletter' },
  ...tenantOp('write'),
  input: z.object({ activity: Activity }),
  async run({ input, ctx }) {
    if (!(await ctx.stores.consent.deleteActivity(input.activity))) throw notFound(Messages.activityNotFound);
    ctx.audit.before = { activity: input.activity };
    return {};
  },
});
