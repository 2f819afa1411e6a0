// POST /v2/TenantDelete: removes a tenant, all its data and every credential of it; main tenant only. With `managedby`
// it removes only a tenant carrying that owner mark. It needs no key of the tenant: one whose own key-encryption key
// was revoked or lost is removed as erased, and the event names what was destroyed (schema, person keys, the KEK).
// A tenant with a live KEK has it revoked and its HSM objects destroyed first (503, tenant kept revoked, if the HSM is away).
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { MAIN_TENANT_ID } from '../../store/database.js';
import { badRequest } from '../../errors.js';
import { TenantId, TenantManagedBy } from './schemas.js';

export const TenantDelete = defineOp({
  name: 'TenantDelete',
  summary: 'Removes a tenant, all its data and every credential of it; main tenant only',
  output: Done,
  example: { tenantid: GENERATED.id },
  ...mainTenantOp('own'),
  input: z.object({ tenantid: TenantId, managedby: TenantManagedBy.optional() }),
  async run({ input, ctx }) {
    if (input.tenantid === MAIN_TENANT_ID) throw badRequest('Invalid API request parameter: tenantid: the main tenant cannot be deleted');
    const { tenantname } = await ctx.services.tenants.owned(input.tenantid, input.managedby);
    const kek = await ctx.services.tenantKeks.describe(input.tenantid);
    // Deleting is crypto-shredding too: every HSM object that ever wrapped the tenant's key is destroyed first.
    await ctx.services.tenantKeks.shred(input.tenantid, ctx.now);
    const destroyed = await ctx.services.tenants.remove(input.tenantid);
    ctx.services.credentials.forgetTenant(input.tenantid);
    ctx.services.tenantKeks.forget(input.tenantid);
    ctx.audit.after = { tenantid: input.tenantid, tenantname, destroyed, ...kek, ...(kek.kekrevoked && { erased: true }) };
    return {};
  },
});
