// POST /v2/TenantCreate: a new tenant with its own schema, and its admin token, shown once; optionally with an owner
// mark (`managedby`, beyond the contract: the operator's Tenant resource uid) and its own key-encryption key (`kek`,
// beyond the contract: an HSM key object's label, `pkcs11` custody only), under which its data keys are wrapped from
// the first one. A refused TenantCreate (400, 409, 503, or its audit event not written) leaves no tenant behind.
import { z } from 'zod';
import { defineOp, mainTenantOp, type OpContext } from '../define.js';
import { TenantName, TenantOrg, TenantEmail, TenantManagedBy, TenantKek } from './schemas.js';

export const TenantCreate = defineOp({
  name: 'TenantCreate',
  summary: 'A new tenant with its own schema, and its admin token, shown once',
  output: z.object({ tenantid: z.number().int(), xtoken: z.string().meta({ description: 'The tenant’s admin token: shown once.' }) }),
  example: { tenantname: 'acme', tenantorg: 'Acme Ltd', email: 'privacy@acme.example' },
  ...mainTenantOp('own'),
  input: z.object({ tenantname: TenantName, tenantorg: TenantOrg, email: TenantEmail.optional(), managedby: TenantManagedBy.optional(), kek: TenantKek.optional() }),
  async run({ input, ctx }) {
    const tenant = await ctx.services.tenants.create(input.tenantname, input.tenantorg, input.email ?? null, input.managedby ?? null);
    try {
      if (input.kek !== undefined) await ctx.services.tenantKeks.assign(tenant.tenantid, input.kek);
      const xtoken = await ctx.services.credentials.issue('tenant-admin', tenant.tenantid);
      await ctx.services.keys.prepareTenant(tenant.tenantid, ctx.now);
      ctx.audit.after = { tenantid: tenant.tenantid, tenantname: tenant.tenantname, ...(input.kek !== undefined && { kek: input.kek }) };
      return { tenantid: tenant.tenantid, xtoken };
    } catch (err) {
      // A refused TenantCreate leaves nothing behind: the caller retries a 503 with the same name.
      await discard(ctx, tenant.tenantid);
      throw err;
    }
  },
  undo: ({ result, ctx }) => discard(ctx, result.tenantid as number),
});

/** The tenant just made, gone again with its schema, row and credentials. A KEK it named is the HSM's: left there. */
async function discard(ctx: OpContext, tenantId: number): Promise<void> {
  await ctx.services.tenants.remove(tenantId);
  ctx.services.credentials.forgetTenant(tenantId);
  ctx.services.tenantKeks.forget(tenantId);
}
