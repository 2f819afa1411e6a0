// POST /v2/AppdataListAppNames: every app name with records in the tenant.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const AppdataListAppNames = defineOp({
  name: 'AppdataListAppNames',
  access: 'tenant',
  kinds: [],
  transaction: 'read',
  housekeeping: true,
  input: z.object({}),
  async run({ ctx }) {
    return { apps: await ctx.stores.appdata.appNames() };
  },
});
