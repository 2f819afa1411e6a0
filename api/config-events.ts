// Privacy events (docs/events.md): where they may go, how they are retried and kept, and how long recipients have to
// confirm an erasure. Part of the api's settings (api/config.ts).
import { z } from 'zod';

export const EVENTS_SETTINGS = {
  STRONGROOM_EVENTS_DISPATCH_SECONDS: z.coerce.number().int().min(0).default(1).meta({ description: 'How often each replica looks for privacy events to deliver (one replica per tenant delivers at a time, elected by a PostgreSQL advisory lock); a write of this replica wakes it at once; `0` turns delivery off (events are still written)' }),
  STRONGROOM_EVENTS_RETRY_SECONDS: z.coerce.number().int().min(1).default(86_400).meta({ description: 'How long a delivery is retried (exponential back-off with jitter, from 1 s to 10 min) before it is dead-lettered' }),
  STRONGROOM_EVENTS_RETRY_FIRST_MS: z.coerce.number().int().min(10).max(600_000).default(1_000).meta({ description: 'The first retry\'s delay; each next one doubles it (at most 10 min), with ±50 % jitter' }),
  STRONGROOM_EVENTS_RETENTION_SECONDS: z.coerce.number().int().min(60).default(7 * 86_400).meta({ description: 'How long delivered events stay in the outbox (for EventReplay and EventDeliveryList); pending ones stay until delivered or dead' }),
  STRONGROOM_EVENTS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000).meta({ description: 'Timeout of one webhook delivery, connection to last byte' }),
  STRONGROOM_EVENTS_MAX_RESPONSE_BYTES: z.coerce.number().int().min(256).max(1_048_576).default(65_536).meta({ description: 'Largest webhook response read; a larger one fails the delivery' }),
  STRONGROOM_EVENTS_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(32).meta({ description: 'Deliveries in flight per subscription' }),
  STRONGROOM_EVENTS_ALLOW_ADDRESSES: z.string().optional().meta({ description: 'Comma-separated addresses or CIDRs webhooks may reach although they are loopback, private, link-local or metadata addresses (refused otherwise), e.g. `10.1.0.0/16`' }),
  STRONGROOM_EVENTS_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(1000).default(20).meta({ description: 'Most event subscriptions one tenant may have' }),
  STRONGROOM_EVENTS_MEASURE_SECONDS: z.coerce.number().int().min(1).max(3600).default(15).meta({ description: 'How often each tenant\'s dispatcher measures its backlog and erasures for the metrics, and announces erasures whose confirmation is overdue' }),
  STRONGROOM_NATS_URL: z.string().optional().meta({ description: 'NATS server(s) with JetStream for `nats` subscriptions (e.g. `nats://127.0.0.1:4222`); unset: such subscriptions are refused' }),
  STRONGROOM_NATS_SUBJECT_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only').default('strongroom').meta({ description: 'A tenant\'s `nats` subscriptions publish under `<prefix>.<tenant id>.`: no tenant can publish into another\'s subjects (vaults sharing a NATS server need prefixes of their own)' }),
  STRONGROOM_ERASURE_CONFIRM_SECONDS: z.coerce.number().int().min(1).default(30 * 86_400).meta({ description: 'How long each recipient has to confirm an erasure (`ErasureConfirm`, or `{"erased": true}` in the webhook\'s answer) before it is overdue: a metric and an `erasure.overdue` event' }),
};

type EventsEnv = z.output<z.ZodObject<typeof EVENTS_SETTINGS>>;

export function eventsOf(e: EventsEnv) {
  return {
    /** How often the dispatcher looks for events to deliver (seconds); 0: never (events are still written). */
    dispatchSeconds: e.STRONGROOM_EVENTS_DISPATCH_SECONDS,
    retrySeconds: e.STRONGROOM_EVENTS_RETRY_SECONDS,
    retryFirstMs: e.STRONGROOM_EVENTS_RETRY_FIRST_MS,
    retentionSeconds: e.STRONGROOM_EVENTS_RETENTION_SECONDS,
    timeoutMs: e.STRONGROOM_EVENTS_TIMEOUT_MS,
    maxResponseBytes: e.STRONGROOM_EVENTS_MAX_RESPONSE_BYTES,
    concurrency: e.STRONGROOM_EVENTS_CONCURRENCY,
    allowAddresses: e.STRONGROOM_EVENTS_ALLOW_ADDRESSES,
    maxSubscriptions: e.STRONGROOM_EVENTS_MAX_SUBSCRIPTIONS,
    natsUrl: e.STRONGROOM_NATS_URL,
    natsPrefix: e.STRONGROOM_NATS_SUBJECT_PREFIX,
    confirmSeconds: e.STRONGROOM_ERASURE_CONFIRM_SECONDS,
    measureSeconds: e.STRONGROOM_EVENTS_MEASURE_SECONDS,
  };
}
