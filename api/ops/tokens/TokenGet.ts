// POST /v2/TokenGet: the record behind a tokenuuid or a tokenbase.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { TokenPair } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { namedToken, TokenName } from './schemas.js';

export const TokenGet = defineOp({
  name: 'TokenGet',
  summary: 'The record behind a tokenuuid or a tokenbase',
  output: TokenPair.extend({ record: z.string().meta({ description: 'The value the token stands for.' }), tokentype: z.string() }),
  example: { token: GENERATED.tokenuuid },
  ...tenantOp('read'),
  input: z.object({ token: TokenName }),
  async run({ input, ctx }) {
    const tokens = ctx.services.tokens;
    const row = await namedToken(ctx, input.token);
    const [opened] = await tokens.open(ctx.tenantId, [row]);
    await tokens.touch(ctx, row);
    ctx.event.publish({ type: 'token.detokenized', person: null, data: { count: 1 } });
    return { record: opened!.record, tokentype: row.tokentype, tokenuuid: row.tokenuuid, tokenbase: row.tokenbase };
  },
});
