// POST /v2/SystemSetLicenseKey: accepted and recorded for compatibility; Strongroom has no licence limits.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Setting } from '../../store/entities/global.js';

export const SystemSetLicenseKey = defineOp({
  name: 'SystemSetLicenseKey',
  access: 'mainTenant',
  effect: 'write',
  input: z.object({ licensekey: z.string().min(1).max(8192) }),
  async run({ input, ctx }) {
    await ctx.em.upsert(Setting, { key: 'licensekey', value: input.licensekey });
    // The key itself is not put in the audit event: only that one was set.
    ctx.audit.after = { licensekey: 'set' };
    return { result: 'done' };
  },
});
