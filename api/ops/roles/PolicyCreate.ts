// POST /v2/PolicyCreate: an IAM-like policy document (CONTRACT §4.9), optionally with an owner mark (`managedby`);
// main tenant only.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { policyWarnings } from '../../vault/policy.js';
import { Name, Description, PolicyDocument, ManagedBy, policyVocabulary } from './schemas.js';

export const PolicyCreate = defineOp({
  name: 'PolicyCreate',
  summary: 'An IAM-like policy document (CONTRACT §4.9), optionally with an owner mark (`managedby`); main tenant only',
  output: z.object({ policyid: z.number().int() }),
  example: { policyname: 'support-read', policydesc: 'Read profiles, no app data', policy: { Effect: 'Allow', Action: ['UserGet', 'UserSearch'], Resource: 'users.profile' } },
  ...mainTenantOp('write'),
  input: z.object({ policyname: Name, policydesc: Description.optional(), policy: PolicyDocument, managedby: ManagedBy.optional() }),
  async run({ input, ctx }) {
    const policyid = await ctx.services.roles.createPolicy(ctx.stores, {
      name: input.policyname,
      desc: input.policydesc ?? '',
      document: input.policy,
      managedby: input.managedby,
      now: ctx.now,
      ...(await policyVocabulary()),
    });
    ctx.audit.after = { policyid, policyname: input.policyname };
    // A valid document may still say what was not meant: a field path that nearly names an indexed field.
    const warnings = policyWarnings(input.policy);
    return { policyid, ...(warnings.length ? { warnings } : {}) };
  },
});
