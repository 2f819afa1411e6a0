// POST /v2/BulkListAllUsers: every live user of the tenant, oldest first, paginated.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Limit, Offset, pageOf } from '../schemas.js';
import { forbidden, Messages } from '../../errors.js';
import { presentUser } from '../../vault/users.js';

export const BulkListAllUsers = defineOp({
  name: 'BulkListAllUsers',
  access: 'tenant',
  kinds: ['profile'],
  masks: true,
  transaction: 'read',
  input: z.object({ unlockuuid: z.string(), offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    if (!ctx.services.config.listUsers) throw forbidden(Messages.listUsersDisabled);
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    const users = ctx.services.users;
    const page = await ctx.stores.users.page(offset, limit, ctx.now);
    const profiles = await users.openMany(ctx.tenantId, page.rows);
    return { total: page.total, rows: page.rows.map((row, i) => presentUser(row, profiles[i]!)) };
  },
});
