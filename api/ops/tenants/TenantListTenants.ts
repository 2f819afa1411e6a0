// POST /v2/TenantListTenants: every tenant, paginated; main tenant only. Beyond the contract: `managedby` lists only
// the tenants carrying that owner mark (how the operator finds what it made, under whatever name), and a row shows
// its tenant's mark when it has one.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { page } from '../outputs.js';
import { Offset, Limit, pageOf } from '../schemas.js';
import { TenantManagedBy } from './schemas.js';

export const TenantListTenants = defineOp({
  name: 'TenantListTenants',
  summary: 'Every tenant, paginated; main tenant only',
  output: page(z.object({ tenantid: z.number().int(), tenantname: z.string(), tenantorg: z.string(), managedby: z.string().optional() })),
  example: { offset: 0, limit: 10 },
  ...mainTenantOp('read'),
  input: z.object({ offset: Offset, limit: Limit, managedby: TenantManagedBy.optional() }),
  async run({ input, ctx }) {
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    const { total, rows } = await ctx.services.tenants.list(offset, limit, input.managedby);
    return { total, rows: rows.map(({ tenantid, tenantname, tenantorg, managedby }) => ({ tenantid, tenantname, tenantorg, ...(managedby !== null && { managedby }) })) };
  },
});
