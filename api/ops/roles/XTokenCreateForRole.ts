// POST /v2/XTokenCreateForRole: a token that acts as the role in this tenant, judged by the role's policies.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest, Messages } from '../../errors.js';
import { TimeInput } from '../schemas.js';
import { RoleRef } from './schemas.js';
import { xtokenExpiry } from './xtokens.js';

export const XTokenCreateForRole = defineOp({
  name: 'XTokenCreateForRole',
  access: 'admin',
  effect: 'write',
  input: z.object({ ...RoleRef, finaltime: TimeInput.optional(), slidingtime: TimeInput.optional() }),
  async run({ input, ctx }) {
    if (input.roleid === undefined && input.rolename === undefined) throw badRequest(`${Messages.missing}roleid`);
    const role = await ctx.services.roles.role(ctx.em, { id: input.roleid, name: input.rolename });
    const expiresAt = xtokenExpiry(input, ctx.now, ctx.services.config.xtokenMaxSeconds);
    const xtoken = await ctx.services.credentials.issue('role', ctx.tenantId, { roleId: role.roleid, expiresAt }, ctx.em);
    ctx.audit.after = { roleid: role.roleid, expires: expiresAt };
    return { xtoken, expires: expiresAt };
  },
});
