// POST /v2/SystemSetLicenseKey: accepted and recorded for compatibility; Strongroom has no licence limits.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';

export const SystemSetLicenseKey = defineOp({
  name: 'SystemSetLicenseKey',
  summary: 'Accepted and recorded for compatibility; Strongroom has no licence limits',
  output: z.object({ result: z.literal('done') }),
  example: { licensekey: 'not-needed-by-strongroom' },
  ...mainTenantOp('write'),
  input: z.object({ licensekey: z.string().min(1).max(8192) }),
  async run({ input, ctx }) {
    await ctx.stores.settings.set('licensekey', input.licensekey);
    // The key itself is not put in the audit event: only that one was set.
    ctx.audit.after = { licensekey: 'set' };
    return { result: 'done' };
  },
});
