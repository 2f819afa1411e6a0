// POST /v2/XTokenRevoke (beyond the contract): ends one role or login xtoken by the `xtokenid` its creation returned.
// Admins of its tenant may; root may in any tenant. Another tenant's id answers 404 like an unknown one.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UuidOut } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { XTokenId } from './xtokens.js';

export const XTokenRevoke = defineOp({
  name: 'XTokenRevoke',
  summary: 'Ends one role or login xtoken by the `xtokenid` its creation returned',
  output: z.object({ xtokenid: UuidOut, kind: z.enum(['role', 'login']) }),
  example: { xtokenid: GENERATED.xtokenid },
  access: 'admin',
  kinds: [],
  transaction: 'write',
  input: z.object({ xtokenid: XTokenId }),
  async run({ input, ctx }) {
    const scope = ctx.principal.kind === 'root' ? null : ctx.tenantId;
    const { kind, tenantId, userToken } = await ctx.services.credentials.revokeXToken(ctx.stores, input.xtokenid, scope);
    // A login xtoken's revocation is part of its person's trail (when it is written in their tenant).
    if (userToken !== null && tenantId === ctx.tenantId) ctx.audit.record = userToken;
    ctx.audit.after = { xtokenid: input.xtokenid, kind, tenantid: tenantId };
    return { xtokenid: input.xtokenid, kind };
  },
});
