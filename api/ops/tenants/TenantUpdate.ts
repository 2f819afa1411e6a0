// POST /v2/TenantUpdate: renames a tenant or changes its organisation or email; `tenantid` defaults to the caller's.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TenantId, TenantName, TenantOrg, TenantEmail, checkTenantAccess } from './schemas.js';

export const TenantUpdate = defineOp({
  name: 'TenantUpdate',
  access: 'tenant',
  kinds: [],
  transaction: 'own',
  input: z.object({ tenantid: TenantId.optional(), tenantname: TenantName.optional(), tenantorg: TenantOrg.optional(), email: TenantEmail.optional() }),
  async run({ input, ctx }) {
    const id = input.tenantid ?? ctx.tenantId;
    checkTenantAccess(ctx.principal, id);
    await ctx.services.tenants.update(id, { name: input.tenantname, org: input.tenantorg, email: input.email });
    ctx.audit.after = { tenantid: id, tenantname: input.tenantname, tenantorg: input.tenantorg };
    return {};
  },
});
