// POST /v2/BulkListTokens: the pairs named by tokenuuids or tokenbases, in request order, behind the unlock UUID.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { page, TokenPair } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { BulkTokensInput } from '../tokens/schemas.js';

export const BulkListTokens = defineOp({
  name: 'BulkListTokens',
  summary: 'The pairs named by tokenuuids or tokenbases, in request order, behind the unlock UUID',
  output: page(TokenPair.extend({ record: z.string(), tokentype: z.string() })),
  example: { unlockuuid: GENERATED.unlockuuid, tokens: [GENERATED.tokenuuid] },
  ...tenantOp('read'),
  input: BulkTokensInput,
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const tokens = ctx.services.tokens;
    const found = await tokens.resolve(ctx, input.tokens);
    // Request order, each pair once, unknown and expired names skipped.
    const seen = new Set<string>();
    const rows = input.tokens.map((t) => found.get(t)).filter((r) => r !== undefined && !seen.has(r.tokenuuid) && seen.add(r.tokenuuid));
    const opened = await tokens.open(ctx.tenantId, rows as NonNullable<(typeof rows)[number]>[]);
    const out = opened.map((o) => ({ tokenuuid: o.row.tokenuuid, tokenbase: o.row.tokenbase, record: o.record, tokentype: o.row.tokentype }));
    if (out.length) ctx.event.publish({ type: 'token.detokenized', person: null, data: { count: out.length } });
    return { total: out.length, rows: out };
  },
});
