// POST /v2/ProcessingActivityLinkLegalBasis: names a legal basis the activity relies on; linking again is a no-op.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { Activity } from './schemas.js';
import { Brief } from '../consent/schemas.js';

export const ProcessingActivityLinkLegalBasis = defineOp({
  name: 'ProcessingActivityLinkLegalBasis',
  summary: 'Names a legal basis the activity relies on; linking again is a no-op',
  output: Done,
  example: { activity: 'newsletter', brief: 'marketing-email' },
  ...tenantOp('write'),
  input: z.object({ activity: Activity, brief: Brief }),
  async run({ input, ctx }) {
    await ctx.services.consent.setLink(ctx, input.activity, input.brief, true);
    ctx.audit.after = input;
    return {};
  },
});
