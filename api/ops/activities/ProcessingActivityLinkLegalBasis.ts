// POST /v2/ProcessingActivityLinkLegalBasis: names a legal basis the activity relies on; linking again is a no-op.
import { defineOp, tenantOp } from '../define.js';
import { ActivityBasisLink } from './schemas.js';

export const ProcessingActivityLinkLegalBasis = defineOp({
  name: 'ProcessingActivityLinkLegalBasis',
  summary: 'Names a legal basis the activity relies on; linking again is a no-op',
  ...tenantOp('write'),
  ...ActivityBasisLink,
  async run({ input, ctx }) {
    await ctx.services.consent.setLink(ctx, input.activity, input.brief, true);
    ctx.audit.after = input;
    return {};
  },
});
