// POST /v2/LegalBasisUpdate: changes the fields sent; `newbrief` renames (agreements and links follow).
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { Brief, BasisFields } from './schemas.js';

export const LegalBasisUpdate = defineOp({
  name: 'LegalBasisUpdate',
  summary: 'Changes the fields sent; `newbrief` renames (agreements and links follow)',
  output: Done,
  example: { brief: 'marketing-email', shortdesc: 'Product news and offers by email' },
  ...tenantOp('write'),
  input: z.object({ brief: Brief, newbrief: Brief.optional(), ...BasisFields }),
  async run({ input, ctx }) {
    const { brief, newbrief, ...fields } = input;
    const before = await ctx.services.consent.updateBasis(ctx, brief, { ...fields, brief: newbrief });
    ctx.audit.before = before;
    ctx.audit.after = input;
    return {};
  },
});
