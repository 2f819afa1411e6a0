// POST /v2/SystemGetSystemStats: how many records the tenant holds (all tenants for the main tenant's admins).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { MAIN_TENANT_ID } from '../../store/database.js';
import { isTenantGone } from '../../store/errors.js';

export const SystemGetSystemStats = defineOp({
  name: 'SystemGetSystemStats',
  summary: "How many records the tenant holds (all tenants for the main tenant's admins)",
  output: z.object({ stats: z.object({ numusers: z.number().int(), numtenants: z.number().int(), numtokens: z.number().int(), numsessions: z.number().int(), totalnumrecords: z.number().int(), licensemaxrecords: z.number().int(), licensefinalexpiration: z.number().int() }) }),
  example: {},
  access: 'admin',
  kinds: [],
  transaction: 'read',
  housekeeping: true,
  input: z.object({}),
  async run({ ctx }) {
    const everyone = ctx.tenantId === MAIN_TENANT_ID && ctx.principal.tenantId === MAIN_TENANT_ID;
    const tenants = everyone ? (await ctx.stores.tenants.all()).map((t) => t.id) : [ctx.tenantId];
    let numusers = 0;
    let numtokens = 0;
    let numsessions = 0;
    let counted = 0;
    for (const id of tenants) {
      // Counted as the vault's own user: the main tenant's admins read every tenant's counts. A tenant deleted since
      // it was listed is not counted (its own call would answer 404).
      const c = await ctx.stores
        .inTenant(id)
        .stats.counts(ctx.now)
        .catch((err: unknown) => (everyone && isTenantGone(err) ? null : Promise.reject(err)));
      if (!c) continue;
      counted++;
      numusers += c.users;
      numtokens += c.tokens;
      numsessions += c.sessions;
    }
    // Strongroom has no licence limits: the licence fields say so with zeros.
    return {
      stats: {
        numusers,
        numtenants: counted,
        numtokens,
        numsessions,
        totalnumrecords: numusers + numtokens,
        licensemaxrecords: 0,
        licensefinalexpiration: 0,
      },
    };
  },
});
