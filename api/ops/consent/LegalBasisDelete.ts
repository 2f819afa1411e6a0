// POST /v2/LegalBasisDelete: removes a basis; one with agreements is marked deleted and its agreements revoked.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Brief } from './schemas.js';

export const LegalBasisDelete = defineOp({
  name: 'LegalBasisDelete',
  summary: 'Removes a basis; one with agreements is marked deleted and its agreements revoked',
  output: z.object({ result: z.enum(['deleted', 'marked']).meta({ description: '`marked`: it had agreements, which are revoked, and it stays as deleted.' }) }),
  example: { brief: 'marketing-email' },
  ...tenantOp('write'),
  input: z.object({ brief: Brief }),
  async run({ input, ctx }) {
    const result = await ctx.services.consent.deleteBasis(ctx, input.brief);
    ctx.audit.before = { brief: input.brief };
    return { result };
  },
});
