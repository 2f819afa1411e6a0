// POST /v2/BulkListAllUsers: every live user of the tenant, oldest first, paginated.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Limit, Offset, pageOf } from '../schemas.js';
import { forbidden, Messages } from '../../errors.js';
import { presentUser } from '../../vault/users.js';
import { visiblePeople, type Listed } from '../listed.js';

/** People read and judged per statement, and the most a role judged per person may have listed in one call. */
const JUDGED_BATCH = 500;
const JUDGED_MAX = 10_000;

export const BulkListAllUsers = defineOp({
  name: 'BulkListAllUsers',
  access: 'tenant',
  kinds: ['profile'],
  masks: true,
  judges: 'list',
  transaction: 'read',
  input: z.object({ unlockuuid: z.string(), offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    if (!ctx.services.config.listUsers) throw forbidden(Messages.listUsersDisabled);
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    const users = ctx.services.users;
    if (ctx.judgeListed) {
      // Each person is judged: the page and the total are of the people the caller may see, so the whole live set
      // is read, a batch at a time, up to a bound that keeps the call's cost finite.
      const visible: Listed[] = [];
      for (let at = 0; ; at += JUDGED_BATCH) {
        const batch = await ctx.stores.users.page(at, JUDGED_BATCH, ctx.now);
        if (batch.total > JUDGED_MAX) throw forbidden(Messages.apiDenied);
        visible.push(...(await visiblePeople(ctx, batch.rows, await users.openMany(ctx.tenantId, batch.rows))));
        if (batch.rows.length < JUDGED_BATCH) break;
      }
      return { total: visible.length, rows: visible.slice(offset, offset + limit).map((p) => presentUser(p.row, p.profile)) };
    }
    const page = await ctx.stores.users.page(offset, limit, ctx.now);
    const profiles = await users.openMany(ctx.tenantId, page.rows);
    return { total: page.total, rows: page.rows.map((row, i) => presentUser(row, profiles[i]!)) };
  },
});
