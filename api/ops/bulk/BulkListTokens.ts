// POST /v2/BulkListTokens: the pairs named by tokenuuids or tokenbases, in request order, behind the unlock UUID.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TokenName } from '../tokens/schemas.js';

export const BulkListTokens = defineOp({
  name: 'BulkListTokens',
  access: 'tenant',
  kinds: [],
  transaction: 'read',
  input: z.object({
    unlockuuid: z.string(),
    tokens: z
      .array(TokenName)
      .min(1, { error: 'Invalid API request parameter: tokens: must not be empty' })
      .max(10_000, { error: 'Invalid API request parameter: tokens: at most 10000 entries' }),
  }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const tokens = ctx.services.tokens;
    const found = await tokens.resolve(ctx, input.tokens);
    // Request order, each pair once, unknown and expired names skipped.
    const seen = new Set<string>();
    const rows = input.tokens.map((t) => found.get(t)).filter((r) => r !== undefined && !seen.has(r.tokenuuid) && seen.add(r.tokenuuid));
    const opened = await tokens.open(ctx.tenantId, rows as NonNullable<(typeof rows)[number]>[]);
    const out = opened.map((o) => ({ tokenuuid: o.row.tokenuuid, tokenbase: o.row.tokenbase, record: o.record, tokentype: o.row.tokentype }));
    return { total: out.length, rows: out };
  },
});
