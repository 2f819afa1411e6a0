// POST /v2/TenantUpdate: renames a tenant or changes its organisation or email; `tenantid` defaults to the caller's.
// `managedby` (main-tenant root and admins only) sets the owner mark of a tenant that has none, or `""` removes it.
// `kek` (beyond the contract; main-tenant root and admins only; `pkcs11` custody) puts the tenant under its own
// key-encryption key: a tenant without one has its existing data keys rewrapped under the new tenant key in the
// background, served throughout; a tenant with one has its tenant key moved to the new object (no data key changes).
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { badRequest, Messages } from '../../errors.js';
import { MAIN_TENANT_ID } from '../../store/database.js';
import { GENERATED } from '../examples.js';
import { TenantId, TenantName, TenantOrg, TenantEmail, TenantManagedBy, TenantKek, checkMainAdmin, checkTenantAccess } from './schemas.js';

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
    kek: TenantKek.optional(),
  }),
  async run({ input, ctx }) {
    const id = input.tenantid ?? ctx.tenantId;
    checkTenantAccess(ctx.principal, id);
    if (input.managedby !== undefined || input.kek !== undefined) checkMainAdmin(ctx.principal);
    if (input.kek !== undefined && id === MAIN_TENANT_ID) throw badRequest(Messages.mainTenantKek);
    await ctx.services.tenants.update(id, { name: input.tenantname, org: input.tenantorg, email: input.email, managedby: input.managedby });
    if (input.kek !== undefined) await ctx.services.tenantKeks.assign(id, input.kek);
    ctx.audit.after = { tenantid: id, tenantname: input.tenantname, tenantorg: input.tenantorg, managedby: input.managedby, kek: input.kek };
    return {};
  },
});
