// POST /v2/AgreementRevokeAll: revokes every agreement in force (or pending) to a legal basis, for everyone.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Brief } from './schemas.js';

export const AgreementRevokeAll = defineOp({
  name: 'AgreementRevokeAll',
  summary: 'Revokes every agreement in force (or pending) to a legal basis, for everyone',
  output: z.object({ revoked: z.number().int() }),
  example: { brief: 'marketing-email' },
  ...tenantOp('write', ['agreement']),
  input: z.object({ brief: Brief }),
  async run({ input, ctx }) {
    await ctx.services.consent.basis(ctx, input.brief, true);
    const tokens = await ctx.stores.consent.revokeAll(input.brief, ctx.now);
    const revoked = tokens.length;
    ctx.audit.after = { brief: input.brief, revoked };
    ctx.event.publish(...tokens.map((token) => ({ type: 'consent.withdrawn' as const, person: token, data: { brief: input.brief } })));
    return { revoked };
  },
});
