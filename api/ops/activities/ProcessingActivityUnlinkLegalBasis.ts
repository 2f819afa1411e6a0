// POST /v2/ProcessingActivityUnlinkLegalBasis: the activity no longer relies on the legal basis.
import { defineOp, tenantOp } from '../define.js';
import { ActivityBasisLink } from './schemas.js';

export const ProcessingActivityUnlinkLegalBasis = defineOp({
  name: 'ProcessingActivityUnlinkLegalBasis',
  summary: 'The activity no longer relies on the legal basis',
  ...tenantOp('write'),
  ...ActivityBasisLink,
  async run({ input, ctx }) {
    await ctx.services.consent.setLink(ctx, input.activity, input.brief, false);
    ctx.audit.before = input;
    return {};
  },
});
