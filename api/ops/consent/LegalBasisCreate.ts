// POST /v2/LegalBasisCreate: a legal basis people can agree to; a brief already in use is a 409.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Brief, BasisFields } from './schemas.js';

export const LegalBasisCreate = defineOp({
  name: 'LegalBasisCreate',
  ...tenantOp('write'),
  input: z.object({ brief: Brief, ...BasisFields }),
  async run({ input, ctx }) {
    const { brief, ...fields } = input;
    ctx.audit.after = input;
    await ctx.services.consent.createBasis(ctx, brief, fields);
    return {};
  },
});
