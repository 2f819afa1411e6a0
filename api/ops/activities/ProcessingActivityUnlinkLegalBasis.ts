// POST /v2/ProcessingActivityUnlinkLegalBasis: the activity no longer relies on the legal basis.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { Activity } from './schemas.js';
import { Brief } from '../consent/schemas.js';

export const ProcessingActivityUnlinkLegalBasis = defineOp({
  name: 'ProcessingActivityUnlinkLegalBasis',
  summary: 'The activity no longer relies on the legal basis',
  output: Done,
  example: { activity: 'newsletter', brief: 'marketing-email' },
  ...tenantOp('write'),
  input: z.object({ activity: Activity, brief: Brief }),
  async run({ input, ctx }) {
    await ctx.services.consent.setLink(ctx, input.activity, input.brief, false);
    ctx.audit.before = input;
    return {};
  },
});
