// POST /v2/UserRequestListUserRequests: one person's requests, newest first, paginated.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { page, RequestOut } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef, Offset, Limit, pageOf } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { presentRequest } from '../../vault/requests.js';

export const UserRequestListUserRequests = defineOp({
  name: 'UserRequestListUserRequests',
  summary: "One person's requests, newest first, paginated",
  output: page(RequestOut),
  example: { ...ADA, offset: 0, limit: 10 },
  ...personOp('read', ['request'], 'own'),
  input: z.object({ ...UserRef, offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    const page = await ctx.stores.requests.ofUser(row.token, offset, limit);
    return { total: page.total, rows: page.rows.map(presentRequest) };
  },
});
