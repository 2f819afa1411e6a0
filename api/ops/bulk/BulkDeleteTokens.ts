// POST /v2/BulkDeleteTokens: removes the pairs named by tokenuuids or tokenbases, behind the unlock UUID.
import { defineOp, tenantOp } from '../define.js';
import { BulkTokensInput } from '../tokens/schemas.js';

export const BulkDeleteTokens = defineOp({
  name: 'BulkDeleteTokens',
  ...tenantOp('write'),
  input: BulkTokensInput,
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now, ctx.stores);
    const tokens = ctx.services.tokens;
    const found = await tokens.resolve(ctx, input.tokens, true);
    const deleted = await ctx.stores.tokens.remove([...new Set([...found.values()].map((r) => r.tokenuuid))]);
    ctx.audit.after = { deleted };
    return { deleted };
  },
});
