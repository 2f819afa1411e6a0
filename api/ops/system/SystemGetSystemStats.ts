// POST /v2/SystemGetSystemStats: how many records the tenant holds (all tenants for the main tenant's admins).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { MAIN_TENANT_ID, tenantSchema } from '../../store/database.js';
import { GLOBAL_SCHEMA } from '../../store/entities/global.js';
import { query } from '../../store/sql.js';

export const SystemGetSystemStats = defineOp({
  name: 'SystemGetSystemStats',
  access: 'admin',
  effect: 'read',
  input: z.object({}),
  async run({ ctx }) {
    const em = ctx.services.db.global();
    const everyone = ctx.tenantId === MAIN_TENANT_ID && ctx.principal.tenantId === MAIN_TENANT_ID;
    const tenants = everyone ? (await query<{ id: number }>(em, `select id from "${GLOBAL_SCHEMA}".tenants order by id`)).map((t) => t.id) : [ctx.tenantId];
    let numusers = 0;
    let numtokens = 0;
    let numsessions = 0;
    for (const id of tenants) {
      const t = `"${tenantSchema(id)}"`;
      const [c] = await query<{ users: number; tokens: number; sessions: number }>(
        em,
        `select (select count(*)::int from ${t}.users) as users, (select count(*)::int from ${t}.tokens) as tokens,
           (select count(*)::int from ${t}.sessions where expires > $1) as sessions`,
        [ctx.now],
      );
      numusers += c?.users ?? 0;
      numtokens += c?.tokens ?? 0;
      numsessions += c?.sessions ?? 0;
    }
    // Strongroom has no licence limits: the licence fields say so with zeros.
    return {
      stats: {
        numusers,
        numtenants: tenants.length,
        numtokens,
        numsessions,
        totalnumrecords: numusers + numtokens,
        licensemaxrecords: 0,
        licensefinalexpiration: 0,
      },
    };
  },
});
