// POST /v2/BulkDeleteTokens: removes the pairs named by tokenuuids or tokenbases, behind the unlock UUID.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TokenName } from '../tokens/schemas.js';

export const BulkDeleteTokens = defineOp({
  name: 'BulkDeleteTokens',
  access: 'tenant',
  kinds: [],
  transaction: 'write',
  input: z.object({
    unlockuuid: z.string(),
    tokens: z
      .array(TokenName)
      .min(1, { error: 'Invalid API request parameter: tokens: must not be empty' })
      .max(10_000, { error: 'Invalid API request parameter: tokens: at most 10000 entries' }),
  }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now, ctx.stores);
    const tokens = ctx.services.tokens;
    const found = await tokens.resolve(ctx, input.tokens, true);
    const deleted = await ctx.stores.tokens.remove([...new Set([...found.values()].map((r) => r.tokenuuid))]);
    ctx.audit.after = { deleted };
    return { deleted };
  },
});
