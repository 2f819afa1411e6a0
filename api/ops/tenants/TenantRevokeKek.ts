// POST /v2/TenantRevokeKek: revokes a tenant's own key-encryption key (beyond the contract; the main tenant's root
// token, behind an unlock UUID). The tenant fails closed at once (every call 503 `The tenant's key is unavailable`),
// then the key object is destroyed inside the HSM, so that no copy of the database (a backup, a replica) opens the
// tenant's data again: crypto-shredding a tenant. Every other tenant keeps serving. Revocation is final: the tenant can
// then only be deleted (TenantDelete). Called again, it retries the destruction (after an HSM outage).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest, forbidden } from '../../errors.js';
import { MAIN_TENANT_ID } from '../../store/database.js';
import { TenantId } from './schemas.js';
import { GENERATED } from '../examples.js';

export const TenantRevokeKek = defineOp({
  name: 'TenantRevokeKek',
  summary: 'Revokes a tenant’s own key-encryption key, destroying it in the HSM: the tenant’s data is unreadable for good',
  output: z.object({ tenantid: z.number().int(), kek: z.string(), revoked: z.number().int().meta({ description: 'When it was revoked (Unix seconds).' }), destroyed: z.boolean() }),
  example: { unlockuuid: GENERATED.unlockuuid, tenantid: 3 },
  access: 'mainTenant',
  kinds: [],
  transaction: 'own',
  input: z.object({ unlockuuid: z.string(), tenantid: TenantId }),
  async run({ input, ctx }) {
    if (ctx.principal.kind !== 'root') throw forbidden('Only the root token can revoke a tenant\'s key-encryption key');
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    if (input.tenantid === MAIN_TENANT_ID) throw badRequest('Invalid API request parameter: tenantid: the main tenant has no key-encryption key of its own');
    const { kek, revoked, destroyed } = await ctx.services.tenantKeks.revoke(input.tenantid, ctx.now);
    ctx.audit.after = { tenantid: input.tenantid, kek, revoked, destroyed };
    return { tenantid: input.tenantid, kek, revoked, destroyed };
  },
});
