// POST /v2/BulkDeleteTokens: removes the pairs named by tokenuuids or tokenbases, behind the unlock UUID.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { GENERATED } from '../examples.js';
import { BulkTokensInput } from '../tokens/schemas.js';

export const BulkDeleteTokens = defineOp({
  name: 'BulkDeleteTokens',
  summary: 'Removes the pairs named by tokenuuids or tokenbases, behind the unlock UUID',
  output: z.object({ deleted: z.number().int() }),
  example: { unlockuuid: GENERATED.unlockuuid, tokens: [GENERATED.tokenuuid] },
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
