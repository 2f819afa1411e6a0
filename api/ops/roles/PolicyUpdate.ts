// POST /v2/PolicyUpdate: changes a policy's name, description, document or owner mark (kept unless given); main
// tenant only.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { policyWarnings } from '../../vault/policy.js';
import { Done } from '../outputs.js';
import { badRequest, Messages } from '../../errors.js';
import { Id, Name, Description, PolicyDocument, ManagedBy, policyVocabulary } from './schemas.js';

export const PolicyUpdate = defineOp({
  name: 'PolicyUpdate',
  summary: "Changes a policy's name, description, document or owner mark (kept unless given); main tenant only",
  output: Done,
  example: { policyname: 'support-read', policydesc: 'Read profiles only' },
  ...mainTenantOp('write'),
  input: z.object({
    policyid: Id.optional(),
    policyname: Name.optional(),
    policydesc: Description.optional(),
    policy: PolicyDocument.optional(),
    managedby: ManagedBy.optional(),
  }),
  async run({ input, ctx }) {
    const roles = ctx.services.roles;
    if (input.policyid === undefined && input.policyname === undefined) throw badRequest(`${Messages.missing}policyid`);
    const policy = await roles.policy(ctx.stores, { id: input.policyid, name: input.policyname });
    await roles.updatePolicy(ctx.stores, policy.policyid, {
      name: input.policyid !== undefined ? input.policyname : undefined,
      desc: input.policydesc,
      document: input.policy,
      managedby: input.managedby,
    }, await policyVocabulary());
    ctx.audit.after = { policyid: policy.policyid };
    const warnings = input.policy === undefined ? [] : policyWarnings(input.policy);
    return warnings.length ? { warnings } : {};
  },
});
