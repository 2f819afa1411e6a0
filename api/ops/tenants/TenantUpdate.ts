// POST /v2/TenantUpdate: renames a tenant or changes its organisation or email; `tenantid` defaults to the caller's.
// `managedby` (main-tenant root and admins only) sets the owner mark of a tenant that has none, or `""` removes it.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { TenantId, TenantName, TenantOrg, TenantEmail, TenantManagedBy, checkMainAdmin, checkTenantAccess } from './schemas.js';

export const TenantUpdate = defineOp({
  name: 'TenantUpdate',
  summary: "Renames a tenant or changes its organisation or email; `tenantid` defaults to the caller's",
  output: Done,
  example: { tenantid: GENERATED.id, tenantorg: 'Acme Limited' },
  ...tenantOp('own'),
  input: z.object({
    tenantid: TenantId.optional(),
    tenantname: TenantName.optional(),
    tenantorg: TenantOrg.optional(),
    email: TenantEmail.optional(),
    managedby: TenantManagedBy.optional(),
  }),
  async run({ input, ctx }) {
    const id = input.tenantid ?? ctx.tenantId;
    checkTenantAccess(ctx.principal, id);
    if (input.managedby !== undefined) checkMainAdmin(ctx.principal);
    await ctx.services.tenants.update(id, { name: input.tenantname, org: input.tenantorg, email: input.email, managedby: input.managedby });
    ctx.audit.after = { tenantid: id, tenantname: input.tenantname, tenantorg: input.tenantorg, managedby: input.managedby };
    return {};
  },
});
