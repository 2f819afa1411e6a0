// POST /v2/PolicyDelete: removes a policy and its links to roles; main tenant only. Beyond the DatabunkerPro
// contract, like RoleDelete and RoleUnlinkPolicy.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { badRequest, Messages } from '../../errors.js';
import { PolicyRef } from './schemas.js';

export const PolicyDelete = defineOp({
  name: 'PolicyDelete',
  summary: 'Removes a policy and its links to roles; main tenant only',
  output: z.object({ policyid: z.number().int() }),
  example: { policyname: 'support-read' },
  ...mainTenantOp('write'),
  input: z.object(PolicyRef),
  async run({ input, ctx }) {
    const roles = ctx.services.roles;
    if (input.policyid === undefined && input.policyname === undefined) throw badRequest(`${Messages.missing}policyid`);
    const policy = await roles.policy(ctx.stores, { id: input.policyid, name: input.policyname });
    await roles.deletePolicy(ctx.stores, policy.policyid);
    ctx.audit.before = { policyid: policy.policyid, policyname: policy.policyname };
    return { policyid: policy.policyid };
  },
});
