// POST /v2/TenantGet: a tenant's name, organisation and email, and its owner mark (`managedby`) when it has one.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TenantId, checkTenantAccess } from './schemas.js';

export const TenantGet = defineOp({
  name: 'TenantGet',
  access: 'tenant',
  kinds: [],
  transaction: 'read',
  input: z.object({ tenantid: TenantId.optional() }),
  async run({ input, ctx }) {
    const id = input.tenantid ?? ctx.tenantId;
    checkTenantAccess(ctx.principal, id);
    const { tenantid, tenantname, tenantorg, email, managedby } = await ctx.services.tenants.get(id);
    return { tenantid, tenantname, tenantorg, email, ...(managedby !== null && { managedby }) };
  },
});
