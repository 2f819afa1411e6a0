// POST /v2/TenantGet: a tenant's name, organisation and email, and its owner mark (`managedby`) when it has one. The
// tenant is named by `tenantid`, or (beyond the contract) by `tenantname`; neither: the caller's own. A tenant with its
// own key-encryption key shows its label (`kek`), and `kekrevoked: true` once revoked.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { badRequest, notFound, Messages } from '../../errors.js';
import { TenantId, TenantName, checkTenantAccess } from './schemas.js';

export const TenantGet = defineOp({
  name: 'TenantGet',
  summary: "A tenant's name, organisation and email, and its owner mark (`managedby`) when it has one",
  output: z.object({ tenantid: z.number().int(), tenantname: z.string(), tenantorg: z.string(), email: z.string().nullable(), managedby: z.string().optional() }),
  example: { tenantname: 'acme' },
  ...tenantOp('read'),
  input: z.object({ tenantid: TenantId.optional(), tenantname: TenantName.optional() }),
  async run({ input, ctx }) {
    if (input.tenantid !== undefined && input.tenantname !== undefined) throw badRequest('Invalid API request parameter: tenantname: give tenantid or tenantname, not both');
    let id = input.tenantid ?? ctx.tenantId;
    if (input.tenantname !== undefined) {
      // An unknown name answers like another tenant's (403) to anyone who may not see every tenant.
      const named = await ctx.services.tenants.named(input.tenantname);
      if (!named) {
        checkTenantAccess(ctx.principal, Number.NaN);
        throw notFound(Messages.tenantNotFound);
      }
      id = named.tenantid;
    }
    checkTenantAccess(ctx.principal, id);
    const { tenantid, tenantname, tenantorg, email, managedby } = await ctx.services.tenants.get(id);
    return { tenantid, tenantname, tenantorg, email, ...(managedby !== null && { managedby }), ...(await ctx.services.tenantKeks.describe(id)) };
  },
});
