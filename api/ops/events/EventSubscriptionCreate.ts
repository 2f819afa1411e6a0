// POST /v2/EventSubscriptionCreate: a webhook or NATS subject that receives the tenant's privacy events; a webhook's
// signing secret is answered here only.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UuidOut } from '../outputs.js';
import { EventTypes, ForTenant, Subject, SubscriptionFilters, Url, eventTenant } from './schemas.js';

export const EventSubscriptionCreate = defineOp({
  name: 'EventSubscriptionCreate',
  summary: "A webhook or NATS subject that receives the tenant's privacy events; a webhook's signing secret is answered once",
  output: z.object({
    subscriptionid: UuidOut,
    secret: z.string().optional().meta({ description: 'The webhook\'s Standard Webhooks signing secret (`whsec_…`): shown here only.' }),
  }),
  example: { url: 'https://crm.example.com/strongroom-events', types: ['person.erased', 'consent.withdrawn'], description: 'CRM' },
  access: 'admin',
  kinds: [],
  transaction: 'write',
  input: z.object({ url: Url.optional(), nats: Subject.optional(), types: EventTypes, ...SubscriptionFilters, ...ForTenant }),
  async run({ input, ctx }) {
    const { stores } = await eventTenant(ctx, input.tenantid);
    const { id, secret, warnings } = await ctx.services.subscriptions.create(stores, input, ctx.now);
    ctx.audit.after = { subscriptionid: id, kind: input.url !== undefined ? 'webhook' : 'nats', types: input.types, tenantid: stores.tenantId };
    return { subscriptionid: id, ...(secret === undefined ? {} : { secret }), ...(warnings ? { warnings } : {}) };
  },
});
