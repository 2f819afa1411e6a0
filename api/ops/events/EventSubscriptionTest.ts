// POST /v2/EventSubscriptionTest: sends one signed `subscription.test` event to the subscription now and answers
// what came of it (not kept in the outbox).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { ForTenant, SubscriptionId, eventTenant } from './schemas.js';

export const EventSubscriptionTest = defineOp({
  name: 'EventSubscriptionTest',
  summary: 'Sends one signed `subscription.test` event to the subscription now and answers what came of it',
  output: z.object({
    delivered: z.boolean(),
    httpstatus: z.number().int().optional().meta({ description: 'The webhook\'s HTTP status, when it answered.' }),
    error: z.string().optional().meta({ description: 'Why the delivery failed.' }),
  }),
  example: { subscriptionid: '7c9e6679-7425-40de-944b-e07fc1f90ae7' },
  access: 'admin',
  kinds: [],
  transaction: 'read',
  input: z.object({ subscriptionid: SubscriptionId, ...ForTenant }),
  async run({ input, ctx }) {
    const { stores } = await eventTenant(ctx, input.tenantid);
    const r = await ctx.services.subscriptions.test(stores, input.subscriptionid);
    ctx.audit.after = { subscriptionid: input.subscriptionid, delivered: r.ok };
    return { delivered: r.ok, ...(r.status === undefined ? {} : { httpstatus: r.status }), ...(r.error === undefined ? {} : { error: r.error }) };
  },
});
