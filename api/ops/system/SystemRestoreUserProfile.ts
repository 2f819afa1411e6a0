// POST /v2/SystemRestoreUserProfile: brings back a removed record from its newest kept version; main tenant only.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { RecordToken, ProfileOut } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Uuid, RecordId } from '../schemas.js';
import { badRequest, notFound, Messages } from '../../errors.js';
import { tenantsNamed } from '../../vault/search.js';

export const SystemRestoreUserProfile = defineOp({
  name: 'SystemRestoreUserProfile',
  summary: 'Brings back a removed record from its newest kept version; main tenant only',
  output: z.object({ result: z.literal('restored'), token: RecordToken, profile: ProfileOut }),
  example: { unlockuuid: GENERATED.unlockuuid, token: GENERATED.token, tenantid: 1 },
  ...mainTenantOp('write', ['profile']),
  input: z.object({ unlockuuid: z.string(), token: Uuid, tenantid: RecordId.optional(), tenantname: z.string().optional() }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now, ctx.stores);
    if (input.tenantid === undefined && input.tenantname === undefined) throw badRequest(`${Messages.missing}tenantid`);
    const [tenant] = await tenantsNamed(ctx.services, input, ctx.stores);
    if (!tenant) throw notFound(Messages.tenantNotFound);
    const token = input.token.toLowerCase();
    ctx.audit.record = token;
    const scope = { stores: ctx.stores.inTenant(tenant.tenantid), tenantId: tenant.tenantid, now: ctx.now };
    const profile = await ctx.services.users.restore(scope, token);
    await ctx.services.outbox.publish(scope.stores, [{ type: 'person.restored', person: token, data: {} }], ctx.now);
    return { result: 'restored', token, profile };
  },
});
