// POST /v2/EventSubscriptionList: the tenant's event subscriptions (never their secrets).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { page } from '../outputs.js';
import { presentSubscription } from '../../vault/privacy/subscriptions.js';
import { ForTenant, eventTenant } from './schemas.js';

const Subscription = z.object({
  subscriptionid: z.string(),
  kind: z.enum(['webhook', 'nats']),
  url: z.string().optional(),
  nats: z.string().optional(),
  types: z.array(z.string()),
  fields: z.array(z.string()).nullable(),
  briefs: z.array(z.string()).nullable(),
  description: z.string().nullable(),
  confirmerasures: z.boolean(),
  confirmrole: z.string().nullable(),
  active: z.boolean(),
  created: z.number().int(),
  updated: z.number().int(),
  previoussecretuntil: z.number().int().nullable(),
});

export const EventSubscriptionList = defineOp({
  name: 'EventSubscriptionList',
  summary: "The tenant's event subscriptions (never their secrets)",
  output: page(Subscription),
  example: {},
  access: 'admin',
  kinds: [],
  transaction: 'read',
  input: z.object({ ...ForTenant }),
  async run({ input, ctx }) {
    const { stores } = await eventTenant(ctx, input.tenantid);
    const rows = (await stores.eventSubscriptions.list()).map((s) => presentSubscription(s));
    return { total: rows.length, rows };
  },
});
