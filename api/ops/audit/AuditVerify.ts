// POST /v2/AuditVerify (beyond the contract): verifies the tenant's whole audit chain with the key, by way of the
// tokenizer, and against the signed checkpoints the api knows. `intact`, or the first broken sequence number and
// why (`link`, `gap`, `checkpoint mismatch`), and the range checked. The tenant's admins; the main tenant's root
// for any tenant through X-Bunker-Tenant.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const AuditVerify = defineOp({
  name: 'AuditVerify',
  access: 'admin',
  kinds: [],
  transaction: 'read',
  input: z.object({}),
  async run({ ctx }) {
    const verdict = await ctx.services.auditVerifier.verify(ctx.tenantId);
    return { ...verdict };
  },
});
