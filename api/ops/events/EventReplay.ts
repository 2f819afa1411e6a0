// POST /v2/EventReplay: sends a subscription's events again from an event (its id) or a time: those its filters
// match, delivered or not, at most `limit` per call (`next` says where to go on).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { TimeInput } from '../schemas.js';
import { badRequest, notFound } from '../../errors.js';
import { parseTimeValue, toDeadline } from '../../vault/durations.js';
import { ForTenant, SubscriptionId, eventTenant } from './schemas.js';
import { Uuid } from '../schemas.js';

const MAX_REPLAY = 10_000;

export const EventReplay = defineOp({
  name: 'EventReplay',
  summary: "Sends a subscription's events again from an event or a time, at most `limit` per call",
  output: z.object({
    replayed: z.number().int(),
    next: z.number().int().nullable().meta({ description: 'The sequence to go on from (`fromsequence`) when more were left; null when none.' }),
  }),
  example: { subscriptionid: '7c9e6679-7425-40de-944b-e07fc1f90ae7', fromtime: '2026-11-01' },
  access: 'admin',
  kinds: [],
  transaction: 'write',
  input: z.object({
    subscriptionid: SubscriptionId,
    fromeventid: Uuid.optional(),
    fromsequence: z.number().int().min(1).optional(),
    fromtime: TimeInput.optional(),
    limit: z.number().int().min(1).max(MAX_REPLAY).optional(),
    ...ForTenant,
  }),
  async run({ input, ctx }) {
    const { stores } = await eventTenant(ctx, input.tenantid);
    const given = [input.fromeventid, input.fromsequence, input.fromtime].filter((v) => v !== undefined).length;
    if (given !== 1) throw badRequest('Invalid API request parameter: fromeventid, fromsequence or fromtime: exactly one of them');
    await ctx.services.subscriptions.existing(stores, input.subscriptionid);
    let from: { id?: number; time?: number };
    if (input.fromeventid !== undefined) {
      const event = await stores.privacyEvents.byUuid(input.fromeventid);
      if (!event) throw notFound('Event not found (past its retention, or never published)');
      from = { id: event.id };
    } else if (input.fromsequence !== undefined) {
      from = { id: input.fromsequence };
    } else {
      const at = fromTime(input.fromtime!, ctx.now);
      from = { time: at * 1000 };
    }
    const r = await stores.privacyEvents.replay(input.subscriptionid, from, input.limit ?? MAX_REPLAY, Date.now());
    // The deliveries are due now: the dispatcher is woken once they commit, not at its next look.
    const wake = () => ctx.services.outbox.committed(stores.tenantId);
    if (r.replayed && !ctx.stores.sql.onEnd('commit', wake)) wake();
    ctx.audit.after = { subscriptionid: input.subscriptionid, replayed: r.replayed, tenantid: stores.tenantId };
    return r;
  },
});

/** A bare number from 10^9 on is a Unix time (in the past, as a replay's is); a duration counts back from now (`1h`). */
function fromTime(value: string | number, now: number): number {
  const bare = typeof value === 'number' ? value : /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  if (bare !== undefined && bare >= 1e9) return bare;
  const parsed = parseTimeValue(value, now);
  if (!parsed) throw badRequest('Invalid API request parameter: fromtime: a time (2026-11-01, a Unix time) or a duration back from now (1h)');
  return parsed.kind === 'relative' ? now - parsed.seconds : (toDeadline(parsed, now) ?? now);
}
