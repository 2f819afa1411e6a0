// POST /v2/SharedRecordGet: public, limited per client address; the shared fields of a live shared record. Every
// retrieval of a record some tenant holds is audited.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { AnyObject, Expiry } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Uuid } from '../schemas.js';
import { draftEvent } from '../../vault/audit/trail.js';
import { NotFoundError, VaultError, Messages } from '../../errors.js';

export const SharedRecordGet = defineOp({
  name: 'SharedRecordGet',
  summary: 'The shared fields of a live shared record, for its recipient (no token; limited per client address)',
  output: z.object({ data: AnyObject.meta({ description: 'The shared fields only.' }), expirationtime: Expiry }),
  example: { recorduuid: GENERATED.uuid },
  access: 'public',
  kinds: [],
  transaction: 'read',
  rateLimited: 'shared',
  input: z.object({ recorduuid: Uuid }),
  // The link works whatever tenant the record belongs to: found through the global index, not the tenant's name.
  tenantOf: (input, services) => services.shared.tenantOf(input.recorduuid.toLowerCase()),
  async run({ input, ctx }) {
    const uuid = input.recorduuid.toLowerCase();
    try {
      const { row, data } = await ctx.services.shared.read(ctx, uuid);
      ctx.audit.record = row.user_token;
      if (row.appname) ctx.audit.app = row.appname;
      ctx.audit.after = { recorduuid: uuid, partner: row.partner, fields: row.fields };
      await ctx.services.audit.record(ctx.tenantId, draftEvent('SharedRecordGet', ctx.actor, ctx.audit, { status: 'ok' }, { now: ctx.now }));
      return { data, expirationtime: row.expires };
    } catch (err) {
      // A uuid no tenant holds reached nobody's data: it is not audited, but counted as a refusal of the caller's
      // address (api/http/v2.ts), so a flood of guesses is throttled rather than written to a trail.
      if (err instanceof NotFoundError && (await ctx.services.shared.tenantOf(uuid)) === null) throw err;
      const msg = err instanceof VaultError ? err.message : Messages.internal;
      ctx.audit.after = { recorduuid: uuid };
      await ctx.services.audit.record(ctx.tenantId, draftEvent('SharedRecordGet', ctx.actor, ctx.audit, { status: 'error', msg }, { now: ctx.now }));
      throw err;
    }
  },
});
