// POST /v2/AuditGetEvent: one audit event with its sealed details (identity, before, after, request_metadata).
// The event's own outcome is `eventstatus`: the envelope's `status` is always this call's.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { AnyObject, AuditEvent } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Uuid } from '../schemas.js';
import { notFound, Messages } from '../../errors.js';

export const AuditGetEvent = defineOp({
  name: 'AuditGetEvent',
  summary: 'One audit event with its sealed details (identity, before, after, request_metadata)',
  output: AuditEvent.omit({ status: true }).extend({ eventstatus: z.enum(['ok', 'error']).meta({ description: 'The event’s own outcome (the envelope’s `status` is this call’s).' }), details: AnyObject.meta({ description: 'The sealed details, opened: identity, before, after, request_metadata; `{ erased: true }` once the person is erased.' }) }),
  example: { auditeventuuid: GENERATED.uuid },
  ...tenantOp('read', ['audit', 'profile']),
  showsProfile: true,
  input: z.object({ auditeventuuid: Uuid }),
  async run({ input, ctx }) {
    const event = await ctx.services.auditReader.get(ctx.stores, input.auditeventuuid.toLowerCase());
    if (!event) throw notFound(Messages.auditNotFound);
    const { status, ...rest } = event;
    return { ...rest, eventstatus: status };
  },
});
