// POST /v2/TenantCreate: a new tenant with its own schema, and its admin token, shown once; optionally with an owner
// mark (`managedby`, beyond the contract: the operator's Tenant resource uid).
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { TenantName, TenantOrg, TenantEmail, TenantManagedBy } from './schemas.js';

export const TenantCreate = defineOp({
  name: 'TenantCreate',
  summary: 'A new tenant with its own schema, and its admin token, shown once',
  output: z.object({ tenantid: z.number().int(), xtoken: z.string().meta({ description: 'The tenant’s admin token: shown once.' }) }),
  example: { tenantname: 'acme', tenantorg: 'Acme Ltd', email: 'privacy@acme.example' },
  ...mainTenantOp('own'),
  input: z.object({ tenantname: TenantName, tenantorg: TenantOrg, email: TenantEmail.optional(), managedby: TenantManagedBy.optional() }),
  async run({ input, ctx }) {
    const tenant = await ctx.services.tenants.create(input.tenantname, input.tenantorg, input.email ?? null, input.managedby ?? null);
    const xtoken = await ctx.services.credentials.issue('tenant-admin', tenant.tenantid);
    await ctx.services.keys.prepareTenant(tenant.tenantid, ctx.now);
    ctx.audit.after = { tenantid: tenant.tenantid, tenantname: tenant.tenantname };
    return { tenantid: tenant.tenantid, xtoken };
  },
});
