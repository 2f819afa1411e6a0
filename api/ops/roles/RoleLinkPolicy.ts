// POST /v2/RoleLinkPolicy: links a policy to a role (idempotent); main tenant only.
import { defineOp, mainTenantOp } from '../define.js';
import { RolePolicyLink, roleAndPolicy } from './schemas.js';

export const RoleLinkPolicy = defineOp({
  name: 'RoleLinkPolicy',
  summary: 'Links a policy to a role (idempotent); main tenant only',
  ...mainTenantOp('write'),
  ...RolePolicyLink,
  async run({ input, ctx }) {
    const { role, policy } = await roleAndPolicy(ctx, input);
    await ctx.services.roles.link(ctx.stores, role.roleid, policy.policyid);
    ctx.audit.after = { roleid: role.roleid, policyid: policy.policyid };
    return { roleid: role.roleid };
  },
});
