// POST /v2/TokenCreateBulk: many records in one transaction and one tokenizer call per step.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { TokenPair } from '../outputs.js';
import { TimeInput } from '../schemas.js';
import { expiryFrom } from '../../vault/durations.js';
import { badRequest } from '../../errors.js';
import { TokenTypeInput, RecordInput, checkedRecord } from './schemas.js';

export const TokenCreateBulk = defineOp({
  name: 'TokenCreateBulk',
  summary: 'Many records in one transaction and one tokenizer call per step',
  output: z.object({ created: z.array(TokenPair.extend({ tokentype: z.string(), record: z.string() })), summary: z.object({ created: z.number().int() }) }),
  example: { records: [{ tokentype: 'email', record: 'ada@example.com' }, { tokentype: 'unixtime', record: 1700000000 }] },
  ...tenantOp('write'),
  largeBody: true,
  input: z.object({
    records: z.array(z.object({ tokentype: TokenTypeInput, record: RecordInput })).min(1, {
      error: 'Invalid API request parameter: records: must not be empty',
    }),
    unique: z.boolean().optional(),
    finaltime: TimeInput.optional(),
    slidingtime: TimeInput.optional(),
  }),
  async run({ input, ctx }) {
    const max = ctx.services.config.bulkMaxRecords;
    if (input.records.length > max) throw badRequest(`Invalid API request parameter: records: at most ${max} per request`);
    const items = input.records.map((r, i) => checkedRecord(`records[${i}].record`, r.tokentype, r.record));
    const expiry = expiryFrom(input, ctx.now);
    const created = await ctx.services.tokens.issue(ctx, items, { unique: input.unique ?? false, expiry });
    ctx.audit.after = { created: created.length };
    return { created, summary: { created: created.length } };
  },
});
