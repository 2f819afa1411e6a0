// POST /v2/LegalBasisCreate: a legal basis people can agree to; a brief already in use is a 409.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { Brief, BasisFields } from './schemas.js';

export const LegalBasisCreate = defineOp({
  name: 'LegalBasisCreate',
  summary: 'A legal basis people can agree to; a brief already in use is a 409',
  output: Done,
  example: { brief: 'marketing-email', status: 'active', module: 'newsletter', shortdesc: 'Product news by email', fulldesc: 'We send product news about once a month.', basistype: 'consent', usercontrol: true },
  ...tenantOp('write'),
  input: z.object({ brief: Brief, ...BasisFields }),
  async run({ input, ctx }) {
    const { brief, ...fields } = input;
    ctx.audit.after = input;
    await ctx.services.consent.createBasis(ctx, brief, fields);
    return {};
  },
});
