// POST /v2/EventDeliveryList: deliveries of the tenant's privacy events, newest first: status, attempts, last error
// and next try, of one subscription or all.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { page } from '../outputs.js';
import { Limit, Offset, pageOf } from '../schemas.js';
import { ForTenant, SubscriptionId, eventTenant } from './schemas.js';

const Delivery = z.object({
  subscriptionid: z.string(),
  eventid: z.string().meta({ description: 'The CloudEvent id (receivers de-duplicate by it).' }),
  sequence: z.number().int().meta({ description: 'The event\'s place in the tenant\'s outbox.' }),
  type: z.string(),
  time: z.number().int().meta({ description: 'When the event happened (Unix seconds).' }),
  token: z.string().nullable(),
  status: z.enum(['pending', 'delivered', 'dead']),
  attempts: z.number().int(),
  nexttry: z.number().int().nullable().meta({ description: 'When a pending delivery is tried next (Unix seconds).' }),
  lasterror: z.string().nullable(),
  httpstatus: z.number().int().nullable(),
  donetime: z.number().int().nullable(),
});

export const EventDeliveryList = defineOp({
  name: 'EventDeliveryList',
  summary: "Deliveries of the tenant's privacy events, newest first: status, attempts, last error and next try (`total` counts up to 10,000)",
  output: page(Delivery),
  example: { status: 'dead', limit: 20 },
  access: 'admin',
  kinds: [],
  transaction: 'read',
  input: z.object({ subscriptionid: SubscriptionId.optional(), status: z.enum(['pending', 'delivered', 'dead']).optional(), offset: Offset, limit: Limit, ...ForTenant }),
  async run({ input, ctx }) {
    const { stores } = await eventTenant(ctx, input.tenantid);
    const { offset, limit } = pageOf(input, 100);
    const { total, rows } = await stores.privacyEvents.deliveries({ subscription: input.subscriptionid, status: input.status }, offset, limit);
    const s = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));
    return {
      total,
      rows: rows.map((d) => ({
        subscriptionid: d.subscription,
        eventid: d.uuid,
        sequence: d.eventId,
        type: d.type,
        time: s(d.time)!,
        token: d.person,
        status: d.status,
        attempts: d.attempts,
        nexttry: s(d.nextTry),
        lasterror: d.lastError,
        httpstatus: d.lastStatus,
        donetime: s(d.doneAt),
      })),
    };
  },
});
