// POST /v2/XTokenListForRole (beyond the contract): this tenant's live xtokens of a role, by id; never a secret.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { page, XToken } from '../outputs.js';
import { RoleRef, namedRole } from './schemas.js';

export const XTokenListForRole = defineOp({
  name: 'XTokenListForRole',
  summary: "This tenant's live xtokens of a role, by id; never a secret",
  output: page(XToken).extend({ roleid: z.number().int() }),
  example: { rolename: 'support' },
  access: 'admin',
  kinds: [],
  transaction: 'read',
  housekeeping: true,
  input: z.object(RoleRef),
  async run({ input, ctx }) {
    const role = await namedRole(ctx, input);
    const rows = await ctx.services.credentials.xtokensOfRole(ctx.stores, ctx.tenantId, role.roleid, ctx.now);
    return { roleid: role.roleid, total: rows.length, rows };
  },
});
