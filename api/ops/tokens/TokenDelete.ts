// POST /v2/TokenDelete: removes the pair named by its tokenuuid or tokenbase.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TokenName } from './schemas.js';

export const TokenDelete = defineOp({
  name: 'TokenDelete',
  access: 'tenant',
  kinds: [],
  transaction: 'write',
  input: z.object({ token: TokenName }),
  async run({ input, ctx }) {
    const tokens = ctx.services.tokens;
    ctx.audit.identity = input.token;
    const row = await tokens.find(ctx, input.token, true);
    ctx.audit.record = row.tokenuuid;
    await ctx.stores.tokens.remove([row.tokenuuid]);
    return {};
  },
});
