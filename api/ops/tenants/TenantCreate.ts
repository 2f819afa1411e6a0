// POST /v2/TenantCreate: a new tenant with its own schema, and its admin token, shown once.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TenantName, TenantOrg, TenantEmail } from './schemas.js';

export const TenantCreate = defineOp({
  name: 'TenantCreate',
  access: 'mainTenant',
  kinds: [],
  transaction: 'own',
  input: z.object({ tenantname: TenantName, tenantorg: TenantOrg, email: TenantEmail.optional() }),
  async run({ input, ctx }) {
    const tenant = await ctx.services.tenants.create(input.tenantname, input.tenantorg, input.email ?? null);
    const xtoken = await ctx.services.credentials.issue('tenant-admin', tenant.tenantid);
    // Its salt known now, outside any transaction (the cross-tenant System operations reach it inside theirs).
    await ctx.services.tokenizer.prepare(tenant.tenantid);
    await ctx.services.keys.ensureTenantKeys([tenant.tenantid], ctx.now);
    ctx.audit.after = { tenantid: tenant.tenantid, tenantname: tenant.tenantname };
    return { tenantid: tenant.tenantid, xtoken };
  },
});
