// POST /v2/AppdataListAppNames: every app name with records in the tenant.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';

export const AppdataListAppNames = defineOp({
  name: 'AppdataListAppNames',
  summary: 'Every app name with records in the tenant',
  output: z.object({ apps: z.array(z.string()) }),
  example: {},
  ...tenantOp('read'),
  housekeeping: true,
  input: z.object({}),
  async run({ ctx }) {
    return { apps: await ctx.stores.appdata.appNames() };
  },
});
