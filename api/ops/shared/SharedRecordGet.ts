// POST /v2/SharedRecordGet: public; the shared fields of a live shared record. Every retrieval is audited.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Uuid } from '../schemas.js';
import { draftEvent } from '../../vault/audit.js';
import { VaultError, Messages } from '../../errors.js';

export const SharedRecordGet = defineOp({
  name: 'SharedRecordGet',
  access: 'public',
  kinds: [],
  transaction: 'read',
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
      await ctx.services.audit.record(ctx.tenantId, draftEvent('SharedRecordGet', ctx.principal, ctx.audit, { status: 'ok' }, undefined, ctx.now));
      return { data };
    } catch (err) {
      const msg = err instanceof VaultError ? err.message : Messages.internal;
      ctx.audit.after = { recorduuid: uuid };
      await ctx.services.audit.record(ctx.tenantId, draftEvent('SharedRecordGet', ctx.principal, ctx.audit, { status: 'error', msg }, undefined, ctx.now));
      throw err;
    }
  },
});
