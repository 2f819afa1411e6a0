// POST /v2/SystemDeleteUserProfiles: removes a person's records in every tenant (or one), keeping their versions
// so SystemRestoreUserProfile can bring them back; main tenant only, behind the unlock UUID.
import { erased } from '../../vault/privacy/events.js';
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { page, TenantRecord } from '../outputs.js';
import { ADA, GENERATED } from '../examples.js';
import { Identity, Mode, RecordId } from '../schemas.js';
import { badRequest, notFound, Messages } from '../../errors.js';
import { isUuid } from '../../vault/identities.js';
import { findInTenant, tenantsNamed } from '../../vault/search.js';

export const SystemDeleteUserProfiles = defineOp({
  name: 'SystemDeleteUserProfiles',
  summary: "Removes a person's records in every tenant (or one), keeping versions for SystemRestoreUserProfile",
  output: page(TenantRecord),
  example: { unlockuuid: GENERATED.unlockuuid, ...ADA },
  ...mainTenantOp('write', ['profile']),
  input: z.object({ unlockuuid: z.string(), mode: Mode, identity: Identity, tenantid: RecordId.optional(), tenantname: z.string().optional() }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now, ctx.stores);
    if (input.mode === 'token' && input.tenantid === undefined && input.tenantname === undefined) {
      throw badRequest('Invalid API request parameter: tenantid: the token mode needs tenantid or tenantname');
    }
    ctx.audit.mode = input.mode;
    ctx.audit.identity = input.identity;
    const removed: { token: string; tenantid: number; tenantname: string }[] = [];
    for (const t of await tenantsNamed(ctx.services, input, ctx.stores)) {
      // The operation's own transaction reaches every tenant's schema: all go, or none.
      const scope = { stores: ctx.stores.inTenant(t.tenantid), tenantId: t.tenantid, now: ctx.now };
      const rows =
        input.mode === 'token'
          ? isUuid(input.identity)
            ? [await scope.stores.users.byToken(input.identity.toLowerCase(), ctx.now, true)].filter((r) => r !== null)
            : []
          : await findInTenant(ctx.services, t.tenantid, { modes: [input.mode], identity: input.identity }, ctx.now, scope.stores);
      for (const row of rows) {
        await ctx.services.users.removeKeepingVersions(scope, row);
        removed.push({ token: row.token, tenantid: t.tenantid, tenantname: t.tenantname });
      }
      // Each tenant's events go to its own outbox, in this transaction.
      await ctx.services.outbox.publish(scope.stores, rows.map((row) => erased(row.token)), ctx.now);
    }
    if (!removed.length) throw notFound(Messages.userNotFound);
    ctx.audit.after = { removed: removed.map((r) => ({ token: r.token, tenantid: r.tenantid })) };
    return { total: removed.length, rows: removed };
  },
});
