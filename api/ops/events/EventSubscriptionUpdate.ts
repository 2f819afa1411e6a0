// POST /v2/EventSubscriptionUpdate: changes a subscription; `rotatesecret` makes a new signing secret (answered once)
// while the previous one keeps signing for `overlap`.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Done } from '../outputs.js';
import { TimeInput } from '../schemas.js';
import { parseTimeValue } from '../../vault/durations.js';
import { badRequest } from '../../errors.js';
import { EventTypes, ForTenant, Subject, SubscriptionFilters, SubscriptionId, Url, eventTenant } from './schemas.js';

export const EventSubscriptionUpdate = defineOp({
  name: 'EventSubscriptionUpdate',
  summary: 'Changes a subscription; `rotatesecret` makes a new signing secret while the previous one signs for `overlap`',
  output: Done.extend({ secret: z.string().optional().meta({ description: 'The new signing secret, when rotated: shown here only.' }) }),
  example: { subscriptionid: '7c9e6679-7425-40de-944b-e07fc1f90ae7', rotatesecret: true, overlap: '1d' },
  access: 'admin',
  kinds: [],
  transaction: 'write',
  input: z.object({
    subscriptionid: SubscriptionId,
    url: Url.optional(),
    nats: Subject.optional(),
    types: EventTypes.optional(),
    ...SubscriptionFilters,
    rotatesecret: z.boolean().optional(),
    overlap: TimeInput.optional().meta({ description: 'How long the previous secret still signs after a rotation (default 1d; at most 30d).' }),
    ...ForTenant,
  }),
  async run({ input, ctx }) {
    const { stores } = await eventTenant(ctx, input.tenantid);
    const overlap = overlapOf(input.overlap);
    const { secret, warnings } = await ctx.services.subscriptions.update(stores, input.subscriptionid, { ...input, overlap, rotate: input.rotatesecret ?? false }, ctx.now);
    ctx.audit.after = { subscriptionid: input.subscriptionid, rotated: secret !== undefined, tenantid: stores.tenantId };
    return { ...(secret === undefined ? {} : { secret }), ...(warnings ? { warnings } : {}) };
  },
});

const MAX_OVERLAP = 30 * 86_400;

function overlapOf(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  // Every bare number is a number of seconds here, never a Unix time.
  const parsed = parseTimeValue(value, Number.MAX_SAFE_INTEGER);
  if (!parsed || parsed.kind !== 'relative' || parsed.seconds > MAX_OVERLAP) throw badRequest('Invalid API request parameter: overlap: a duration of at most 30d (e.g. 12h, 1d)');
  return parsed.seconds;
}
