// POST /v2/RoleUnlinkPolicy: the role no longer holds the policy (unlinking one it does not hold is no error);
// main tenant only. The counterpart of RoleLinkPolicy, beyond the DatabunkerPro contract.
import { defineOp, mainTenantOp } from '../define.js';
import { RolePolicyLink, roleAndPolicy } from './schemas.js';

export const RoleUnlinkPolicy = defineOp({
  name: 'RoleUnlinkPolicy',
  summary: 'The role no longer holds the policy (unlinking one it does not hold is no error); main tenant only',
  ...mainTenantOp('write'),
  ...RolePolicyLink,
  async run({ input, ctx }) {
    const { role, policy } = await roleAndPolicy(ctx, input);
    await ctx.services.roles.unlink(ctx.stores, role.roleid, policy.policyid);
    ctx.audit.after = { roleid: role.roleid, unlinked: policy.policyid };
    return { roleid: role.roleid };
  },
});
