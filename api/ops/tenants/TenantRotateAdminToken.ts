// POST /v2/TenantRotateAdminToken: a new admin token for a tenant, shown once; every earlier one stops working.
// Main tenant only, beyond the DatabunkerPro contract: TenantCreate shows the only other one, once, so a lost
// token would otherwise leave the tenant without an administrator. With `managedby` (what the operator sends) it acts
// only on a tenant carrying that owner mark: never on the main tenant or a tenant some other tool or person made.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { GENERATED } from '../examples.js';
import { TenantId, TenantManagedBy } from './schemas.js';

export const TenantRotateAdminToken = defineOp({
  name: 'TenantRotateAdminToken',
  summary: 'A new admin token for a tenant, shown once; every earlier one stops working',
  output: z.object({ tenantid: z.number().int(), xtoken: z.string().meta({ description: 'The new admin token: shown once.' }), revoked: z.number().int().meta({ description: 'How many earlier admin tokens stopped working.' }) }),
  example: { tenantid: GENERATED.id },
  ...mainTenantOp('own'),
  input: z.object({ tenantid: TenantId, managedby: TenantManagedBy.optional() }),
  async run({ input, ctx }) {
    const tenant = await ctx.services.tenants.owned(input.tenantid, input.managedby);
    const { xtoken, revoked } = await ctx.services.credentials.rotateTenantAdmins(tenant.tenantid);
    ctx.audit.after = { tenantid: tenant.tenantid, revoked };
    return { tenantid: tenant.tenantid, xtoken, revoked };
  },
});
