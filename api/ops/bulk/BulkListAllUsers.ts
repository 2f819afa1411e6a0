// POST /v2/BulkListAllUsers: every live user of the tenant, oldest first, paginated.
import { z } from 'zod';
import { defineOp, type OpContext } from '../define.js';
import { page, UserOut } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Limit, Offset, pageOf } from '../schemas.js';
import { forbidden, Messages } from '../../errors.js';
import { presentUser } from '../../vault/users.js';
import { visiblePeople, type Listed } from '../listed.js';

/**
 * For a role judged per person: the most people one page reads and judges, as a multiple of its limit. A page
 * costs what its limit allows, whatever the size of the tenant.
 */
export const LOOKAHEAD = 4;

export const BulkListAllUsers = defineOp({
  name: 'BulkListAllUsers',
  summary: 'Every live user of the tenant, oldest first, paginated',
  output: page(UserOut).extend({ nextoffset: z.number().int().optional().meta({ description: 'Where the next page starts, when people the caller may not see were left out of this one.' }) }),
  example: { unlockuuid: GENERATED.unlockuuid, offset: 0, limit: 10 },
  access: 'tenant',
  kinds: ['profile'],
  masks: true,
  showsProfile: true,
  judges: 'list',
  transaction: 'read',
  input: z.object({ unlockuuid: z.string(), offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    if (!ctx.services.config.listUsers) throw forbidden(Messages.listUsersDisabled);
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    if (ctx.gate.judgesEach) return judgedPage(ctx, offset, limit);
    const page = await ctx.stores.users.page(offset, limit, ctx.now);
    const profiles = await ctx.services.users.openMany(ctx.tenantId, page.rows);
    return { total: page.total, rows: page.rows.map((row, i) => presentUser(row, profiles[i]!)) };
  },
});

/**
 * A page for a role that judges each person: `offset` is a place in the tenant's list (of `total` people), and the
 * page reads on from there, judging each person, until it has `limit` people the caller may see or has read
 * LOOKAHEAD times `limit`. `nextoffset` is where the next page starts; it is absent at the end of the list.
 */
async function judgedPage(ctx: OpContext, offset: number, limit: number) {
  const visible: Listed[] = [];
  const budget = limit * LOOKAHEAD;
  let at = offset;
  let total = 0;
  while (visible.length < limit && at - offset < budget) {
    const want = Math.min(limit, offset + budget - at);
    const batch = await ctx.stores.users.page(at, want, ctx.now);
    total = batch.total;
    const judged = new Map((await visiblePeople(ctx, batch.rows, await ctx.services.users.openMany(ctx.tenantId, batch.rows))).map((p) => [p.row.token, p]));
    // Taken in list order, up to the limit: the next page starts right after the last person this one took.
    for (const row of batch.rows) {
      at += 1;
      const person = judged.get(row.token);
      if (person) visible.push(person);
      if (visible.length === limit) break;
    }
    if (batch.rows.length < want) break;
  }
  return { total, rows: visible.map((p) => presentUser(p.row, p.profile)), ...(at < total ? { nextoffset: at } : {}) };
}
