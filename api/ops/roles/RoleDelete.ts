// POST /v2/RoleDelete: removes a role with its policy links and every xtoken issued for it; main tenant only.
// Beyond the DatabunkerPro contract: without it a role could only be disarmed, never removed.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { RoleRef, namedRole } from './schemas.js';

export const RoleDelete = defineOp({
  name: 'RoleDelete',
  summary: 'Removes a role with its policy links and every xtoken issued for it; main tenant only',
  output: z.object({ roleid: z.number().int() }),
  example: { rolename: 'support' },
  ...mainTenantOp('write'),
  input: z.object(RoleRef),
  async run({ input, ctx }) {
    const roles = ctx.services.roles;
    const role = await namedRole(ctx, input);
    await roles.deleteRole(ctx.stores, role.roleid);
    // This process stops honouring the role's xtokens now; other replicas within their cache's few seconds.
    ctx.services.credentials.forgetRole(role.roleid);
    ctx.audit.before = { roleid: role.roleid, rolename: role.rolename };
    return { roleid: role.roleid };
  },
});
