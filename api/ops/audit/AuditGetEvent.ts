// POST /v2/AuditGetEvent: one audit event with its sealed details (identity, before, after, request_metadata).
// The event's own outcome is `eventstatus`: the envelope's `status` is always this call's.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Uuid } from '../schemas.js';
import { notFound, Messages } from '../../errors.js';

export const AuditGetEvent = defineOp({
  name: 'AuditGetEvent',
  ...tenantOp('read', ['audit', 'profile']),
  input: z.object({ auditeventuuid: Uuid }),
  async run({ input, ctx }) {
    const event = await ctx.services.auditReader.get(ctx.stores, input.auditeventuuid.toLowerCase());
    if (!event) throw notFound(Messages.auditNotFound);
    const { status, ...rest } = event;
    return { ...rest, eventstatus: status };
  },
});
