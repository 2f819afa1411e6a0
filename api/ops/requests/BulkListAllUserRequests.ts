// POST /v2/BulkListAllUserRequests: the tenant's requests (open ones unless `status` says otherwise), behind
// the unlock UUID, newest first, paginated.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { page, RequestOut } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Offset, Limit, pageOf } from '../schemas.js';
import { presentRequest } from '../../vault/requests.js';

export const BulkListAllUserRequests = defineOp({
  name: 'BulkListAllUserRequests',
  summary: "The tenant's requests (open ones unless `status` says otherwise), newest first, behind the unlock UUID",
  output: page(RequestOut),
  example: { unlockuuid: GENERATED.unlockuuid, status: 'open', offset: 0, limit: 10 },
  ...tenantOp('read', ['request']),
  input: z.object({
    unlockuuid: z.string(),
    offset: Offset,
    limit: Limit,
    status: z.enum(['open', 'approved', 'canceled', 'all'], { error: 'Invalid API request parameter: status must be open, approved, canceled or all' }).default('open'),
  }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    const page = await ctx.stores.requests.all(input.status === 'all' ? null : input.status, offset, limit);
    return { total: page.total, rows: page.rows.map(presentRequest) };
  },
});
