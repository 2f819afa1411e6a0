// POST /v2/TenantListTenants: every tenant, paginated; main tenant only.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Offset, Limit, pageOf } from '../schemas.js';

export const TenantListTenants = defineOp({
  name: 'TenantListTenants',
  access: 'mainTenant',
  kinds: [],
  transaction: 'read',
  input: z.object({ offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    const { total, rows } = await ctx.services.tenants.list(offset, limit);
    return { total, rows: rows.map(({ tenantid, tenantname, tenantorg }) => ({ tenantid, tenantname, tenantorg })) };
  },
});
