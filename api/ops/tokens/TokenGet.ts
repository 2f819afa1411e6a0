// POST /v2/TokenGet: the record behind a tokenuuid or a tokenbase.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TokenName } from './schemas.js';

export const TokenGet = defineOp({
  name: 'TokenGet',
  access: 'tenant',
  kinds: [],
  transaction: 'read',
  input: z.object({ token: TokenName }),
  async run({ input, ctx }) {
    const tokens = ctx.services.tokens;
    ctx.audit.identity = input.token;
    const row = await tokens.find(ctx, input.token);
    ctx.audit.record = row.tokenuuid;
    const [opened] = await tokens.open(ctx.tenantId, [row]);
    await tokens.touch(ctx, row);
    return { record: opened!.record, tokentype: row.tokentype, tokenuuid: row.tokenuuid, tokenbase: row.tokenbase };
  },
});
