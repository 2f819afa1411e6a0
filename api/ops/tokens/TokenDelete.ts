// POST /v2/TokenDelete: removes the pair named by its tokenuuid or tokenbase.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { namedToken, TokenName } from './schemas.js';

export const TokenDelete = defineOp({
  name: 'TokenDelete',
  summary: 'Removes the pair named by its tokenuuid or tokenbase',
  output: Done,
  example: { token: GENERATED.tokenuuid },
  ...tenantOp('write'),
  input: z.object({ token: TokenName }),
  async run({ input, ctx }) {
    const row = await namedToken(ctx, input.token, true);
    await ctx.stores.tokens.remove([row.tokenuuid]);
    return {};
  },
});
