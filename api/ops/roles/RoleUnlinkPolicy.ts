// POST /v2/RoleUnlinkPolicy: the role no longer holds the policy (unlinking one it does not hold is no error);
// main tenant only. The counterpart of RoleLinkPolicy, beyond the DatabunkerPro contract.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest, Messages } from '../../http/errors.js';
import { RoleRef, PolicyRef } from './schemas.js';

export const RoleUnlinkPolicy = defineOp({
  name: 'RoleUnlinkPolicy',
  access: 'mainTenant',
  effect: 'write',
  input: z.object({ ...RoleRef, ...PolicyRef }),
  async run({ input, ctx }) {
    const roles = ctx.services.roles;
    if (input.roleid === undefined && input.rolename === undefined) throw badRequest(`${Messages.missing}roleid`);
    if (input.policyid === undefined && input.policyname === undefined) throw badRequest(`${Messages.missing}policyid`);
    const role = await roles.role(ctx.em, { id: input.roleid, name: input.rolename });
    const policy = await roles.policy(ctx.em, { id: input.policyid, name: input.policyname });
    await roles.unlink(ctx.em, role.roleid, policy.policyid);
    ctx.audit.after = { roleid: role.roleid, unlinked: policy.policyid };
    return { roleid: role.roleid };
  },
});
