// POST /v2/ErasureConfirm: a recipient says it erased the person of a `person.erased` event. A role xtoken confirms for
// the subscriptions naming its role (`confirmrole`); an admin names the subscription.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { Uuid } from '../schemas.js';
import { SubscriptionId } from './schemas.js';

export const ErasureConfirm = defineOp({
  name: 'ErasureConfirm',
  summary: 'A recipient confirms it erased the person of a `person.erased` event (a role xtoken for the subscriptions naming its role)',
  output: z.object({ confirmed: z.array(z.string()).meta({ description: 'The subscriptions this erasure is now confirmed for.' }) }),
  example: { eventid: '1b4e28ba-2fa1-41d2-883f-0016d3cca427', subscriptionid: '7c9e6679-7425-40de-944b-e07fc1f90ae7' },
  access: 'tenant',
  kinds: [],
  transaction: 'write',
  input: z.object({ eventid: Uuid, subscriptionid: SubscriptionId.optional() }),
  async run({ input, ctx }) {
    const event = await ctx.stores.privacyEvents.byUuid(input.eventid);
    const all = event?.type === 'person.erased' ? await ctx.stores.eventSubscriptions.confirmations({ event: input.eventid }, 1_000) : [];
    if (!all.length) throw notFound('Erasure not found: no confirmation is owed for this event');
    // A deleted subscription's record is closed: what it confirmed, or did not, stays as it was (docs/events.md).
    if (input.subscriptionid !== undefined && all.some((o) => o.subscription === input.subscriptionid && o.deleted)) {
      throw conflict('Conflict: the subscription was deleted; the confirmations it owed are closed');
    }
    const owed = all.filter((o) => !o.deleted);
    let subscriptions: string[];
    if (ctx.principal.kind === 'role') {
      const all = await ctx.stores.eventSubscriptions.list();
      const mine = new Set(all.filter((s) => s.confirmRole !== null && s.confirmRole === ctx.actor.rolename).map((s) => s.id));
      subscriptions = owed.map((o) => o.subscription).filter((id) => mine.has(id) && (input.subscriptionid === undefined || id === input.subscriptionid));
      if (!subscriptions.length) throw forbidden('Access denied: this role confirms erasures for none of the subscriptions this erasure was sent to');
    } else {
      if (input.subscriptionid === undefined) throw badRequest('Missing API request parameters: subscriptionid');
      if (!owed.some((o) => o.subscription === input.subscriptionid)) throw notFound('Erasure not found: no confirmation is owed by this subscription');
      subscriptions = [input.subscriptionid];
    }
    // The recipient's own credential (its confirming role) and an admin confirming on its behalf are told apart.
    const via = ctx.principal.kind === 'role' ? 'api' : 'admin';
    const confirmed = await ctx.stores.eventSubscriptions.confirm(input.eventid, subscriptions, via, ctx.actor.rolename ? `role ${ctx.actor.rolename}` : ctx.principal.kind, ctx.now);
    ctx.audit.record = event!.person ?? undefined;
    ctx.audit.after = { eventid: input.eventid, confirmed };
    return { confirmed };
  },
});
