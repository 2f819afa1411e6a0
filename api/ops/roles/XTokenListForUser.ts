// POST /v2/XTokenListForUser (beyond the contract): the live login xtokens of a person of this tenant, by id; never
// a secret.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { RecordToken, page, XToken } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const XTokenListForUser = defineOp({
  name: 'XTokenListForUser',
  summary: 'The live login xtokens of a person of this tenant, by id; never a secret',
  output: page(XToken).extend({ token: RecordToken }),
  example: { ...ADA },
  access: 'admin',
  kinds: [],
  transaction: 'read',
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const rows = await ctx.services.credentials.xtokensOfUser(ctx.stores, ctx.tenantId, row.token, ctx.now);
    return { token: row.token, total: rows.length, rows };
  },
});
