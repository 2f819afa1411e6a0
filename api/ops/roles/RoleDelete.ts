// POST /v2/RoleDelete: removes a role with its policy links and every xtoken issued for it; main tenant only.
// Beyond the DatabunkerPro contract: without it a role could only be disarmed, never removed.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest, Messages } from '../../errors.js';
import { RoleRef } from './schemas.js';

export const RoleDelete = defineOp({
  name: 'RoleDelete',
  access: 'mainTenant',
  kinds: [],
  transaction: 'write',
  input: z.object(RoleRef),
  async run({ input, ctx }) {
    const roles = ctx.services.roles;
    if (input.roleid === undefined && input.rolename === undefined) throw badRequest(`${Messages.missing}roleid`);
    const role = await roles.role(ctx.em, { id: input.roleid, name: input.rolename });
    await roles.deleteRole(ctx.em, role.roleid);
    // This process stops honouring the role's xtokens now; other replicas within their cache's few seconds.
    ctx.services.credentials.forgetRole(role.roleid);
    ctx.audit.before = { roleid: role.roleid, rolename: role.rolename };
    return { roleid: role.roleid };
  },
});
