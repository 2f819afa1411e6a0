// POST /v2/XTokenCreateForRole: a token that acts as the role in this tenant, judged by the role's policies. With
// `managedby` (beyond the contract; the operator always sends it) the token is made only when the tenant the call acts
// in carries exactly that owner mark: a tenant named in the header may have been renamed and its name taken by
// another tenant since the caller proved whose it was (409 then; 400 in the main tenant, which carries no mark).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { NewXToken } from '../outputs.js';
import { TimeInput } from '../schemas.js';
import { ManagedBy, RoleRef, namedRole } from './schemas.js';
import { xtokenExpiry } from './xtokens.js';
import { cappedField } from '../../vault/durations.js';

export const XTokenCreateForRole = defineOp({
  name: 'XTokenCreateForRole',
  summary: "A token that acts as the role in this tenant, judged by the role's policies",
  output: NewXToken,
  example: { rolename: 'support', finaltime: '30d' },
  access: 'admin',
  kinds: [],
  transaction: 'write',
  input: z.object({ ...RoleRef, finaltime: TimeInput.optional(), slidingtime: TimeInput.optional(), managedby: ManagedBy.optional() }),
  async run({ input, ctx }) {
    if (input.managedby !== undefined) await ctx.services.tenants.owned(ctx.tenantId, input.managedby, ctx.stores.tenants);
    const role = await namedRole(ctx, input);
    const { expires: expiresAt, capped } = xtokenExpiry(input, ctx.now, ctx.services.config.xtokenMaxSeconds);
    const { token: xtoken, id: xtokenid } = await ctx.services.credentials.issueWithId('role', ctx.tenantId, { roleId: role.roleid, expiresAt }, ctx.stores);
    ctx.audit.after = { roleid: role.roleid, xtokenid, expires: expiresAt };
    // Beyond the contract: `xtokenid` names it for XTokenRevoke and the xtoken lists.
    return { xtoken, xtokenid, expires: expiresAt, ...cappedField(capped) };
  },
});
