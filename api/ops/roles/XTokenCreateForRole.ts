// POST /v2/XTokenCreateForRole: a token that acts as the role in this tenant, judged by the role's policies.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TimeInput } from '../schemas.js';
import { RoleRef, namedRole } from './schemas.js';
import { xtokenExpiry } from './xtokens.js';

export const XTokenCreateForRole = defineOp({
  name: 'XTokenCreateForRole',
  access: 'admin',
  kinds: [],
  transaction: 'write',
  input: z.object({ ...RoleRef, finaltime: TimeInput.optional(), slidingtime: TimeInput.optional() }),
  async run({ input, ctx }) {
    const role = await namedRole(ctx, input);
    const expiresAt = xtokenExpiry(input, ctx.now, ctx.services.config.xtokenMaxSeconds);
    const { token: xtoken, id: xtokenid } = await ctx.services.credentials.issueWithId('role', ctx.tenantId, { roleId: role.roleid, expiresAt }, ctx.em);
    ctx.audit.after = { roleid: role.roleid, xtokenid, expires: expiresAt };
    // Beyond the contract: `xtokenid` names it for XTokenRevoke and the xtoken lists.
    return { xtoken, xtokenid, expires: expiresAt };
  },
});
