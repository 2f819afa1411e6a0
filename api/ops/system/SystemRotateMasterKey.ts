// POST /v2/SystemRotateMasterKey: a new master key version, active for new writes at once; persons' keys are
// wrapped again under it in the background (SystemGetKeyringStatus shows how far). Main tenant only.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';

export const SystemRotateMasterKey = defineOp({
  name: 'SystemRotateMasterKey',
  summary: "A new master key version, active for new writes at once; persons' keys are rewrapped in the background",
  output: z.object({ active: z.number().int().meta({ description: 'The new active master key version.' }) }),
  example: {},
  ...mainTenantOp('own'),
  input: z.object({}),
  async run({ ctx }) {
    const active = await ctx.services.custody.rotate();
    ctx.audit.after = { active };
    return { active };
  },
});
