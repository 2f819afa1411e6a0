// POST /v2/TokenCreate: one record becomes a (tokenuuid, tokenbase) pair; `unique` returns the record's existing pair.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { TokenPair } from '../outputs.js';
import { TimeInput } from '../schemas.js';
import { expiryFrom } from '../../vault/durations.js';
import { TokenTypeInput, RecordInput, checkedRecord } from './schemas.js';

export const TokenCreate = defineOp({
  name: 'TokenCreate',
  summary: "One record becomes a (tokenuuid, tokenbase) pair; `unique` returns the record's existing pair",
  output: TokenPair,
  example: { tokentype: 'creditcard', record: '4111111111111111' },
  ...tenantOp('write'),
  input: z.object({
    tokentype: TokenTypeInput,
    record: RecordInput,
    unique: z.boolean().optional(),
    finaltime: TimeInput.optional(),
    slidingtime: TimeInput.optional(),
  }),
  async run({ input, ctx }) {
    const item = checkedRecord('record', input.tokentype, input.record);
    const expiry = expiryFrom(input, ctx.now);
    const [token] = await ctx.services.tokens.issue(ctx, [item], { unique: input.unique ?? false, expiry });
    ctx.audit.record = token!.tokenuuid;
    return { tokenuuid: token!.tokenuuid, tokenbase: token!.tokenbase };
  },
});
