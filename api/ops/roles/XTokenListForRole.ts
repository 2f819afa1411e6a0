// POST /v2/XTokenListForRole (beyond the contract): this tenant's live xtokens of a role, by id; never a secret.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest, Messages } from '../../errors.js';
import { RoleRef } from './schemas.js';

export const XTokenListForRole = defineOp({
  name: 'XTokenListForRole',
  access: 'admin',
  kinds: [],
  transaction: 'read',
  input: z.object(RoleRef),
  async run({ input, ctx }) {
    if (input.roleid === undefined && input.rolename === undefined) throw badRequest(`${Messages.missing}roleid`);
    const role = await ctx.services.roles.role(ctx.em, { id: input.roleid, name: input.rolename });
    const rows = await ctx.services.credentials.xtokensOfRole(ctx.em, ctx.tenantId, role.roleid, ctx.now);
    return { roleid: role.roleid, total: rows.length, rows };
  },
});
