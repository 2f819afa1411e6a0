// POST /v2/AuditVerify (beyond the contract): verifies the tenant's whole audit chain with the key, by way of the
// tokenizer, against the signed checkpoints the api knows and the newest head the tokenizer knows committed.
// `intact`, or the first broken sequence number and why (`link`, `gap`, `checkpoint mismatch`, `cut`), and the range
// checked. One run per tenant at a time (409 while another replica runs one). The tenant's admins; the main
// tenant's root for any tenant through X-Bunker-Tenant. On a trail cut or broken, which links nothing, its own event
// is queued as a write's is (committed before the answer: AuditTrail's QUEUED_WHEN_UNLINKED), and the verdict answered.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const AuditVerify = defineOp({
  name: 'AuditVerify',
  summary: "Verifies the tenant's whole audit chain with the tokenizer's key against the signed checkpoints",
  output: z.object({ result: z.enum(['intact', 'broken']), checked: z.object({ from: z.number().int(), to: z.number().int() }).meta({ description: 'The sequence numbers examined.' }), broken: z.object({ seq: z.number().int(), why: z.enum(['link', 'gap', 'checkpoint mismatch', 'cut']) }).optional() }),
  example: {},
  access: 'admin',
  kinds: [],
  transaction: 'read',
  input: z.object({}),
  async run({ ctx }) {
    const verdict = await ctx.services.auditVerifier.verify(ctx.tenantId);
    return { ...verdict };
  },
});
