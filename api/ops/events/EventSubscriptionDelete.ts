// POST /v2/EventSubscriptionDelete: ends a subscription and drops its pending deliveries; the erasure confirmations
// it owed and gave stay on record (ErasureStatusGet shows it as deleted).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Done } from '../outputs.js';
import { notFound } from '../../errors.js';
import { ForTenant, SubscriptionId, eventTenant } from './schemas.js';

export const EventSubscriptionDelete = defineOp({
  name: 'EventSubscriptionDelete',
  summary: 'Ends a subscription and drops its pending deliveries; the erasure confirmations it owed and gave stay on record',
  output: Done,
  example: { subscriptionid: '7c9e6679-7425-40de-944b-e07fc1f90ae7' },
  access: 'admin',
  kinds: [],
  transaction: 'write',
  input: z.object({ subscriptionid: SubscriptionId, ...ForTenant }),
  async run({ input, ctx }) {
    const { stores } = await eventTenant(ctx, input.tenantid);
    if (!(await stores.eventSubscriptions.remove(input.subscriptionid, ctx.now))) throw notFound('Event subscription not found');
    ctx.audit.after = { subscriptionid: input.subscriptionid, tenantid: stores.tenantId };
    return {};
  },
});
