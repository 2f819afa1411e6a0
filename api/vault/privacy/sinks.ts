// The sink each subscription delivers through, made once per version of the subscription: a webhook (its signing
// secrets opened from their seal, the previous one too during a rotation's overlap) or a subject of the NATS
// JetStream broker (one connection per process, made when the first `nats` subscription needs it).
import type { Logger } from 'pino';
import type { SubscriptionRow } from '../../store/event-subscriptions.js';
import type { Sealer } from '../sealed.js';
import type { Sink, Outgoing, DeliveryResult } from './sink.js';
import { WebhookSink } from './webhook.js';
import { NatsBroker } from './nats.js';
import type { AllowList } from './ssrf.js';

export interface SinkOptions {
  allow: AllowList;
  timeoutMs: number;
  maxResponseBytes: number;
  concurrency: number;
  natsUrl: string | undefined;
  natsPrefix: string;
}

/**
 * The subjects a tenant's NATS subscriptions may use: `<prefix>.<tenant id>.`. By id, which never changes and is never
 * given out again: a renamed tenant keeps its subjects, and no tenant can take over another's.
 */
export function natsPrefix(prefix: string, tenantId: number): string {
  return `${prefix}.${tenantId}.`;
}

/** The table and row a subscription's secrets are sealed for (their AAD). */
export const SECRET_TABLE = 'event_subscriptions';

/** A sink that fails every delivery with one reason (NATS not configured or away): retried later, never lost. */
class Unavailable implements Sink {
  constructor(private readonly reason: string) {}
  deliver(events: readonly Outgoing[]): Promise<DeliveryResult[]> {
    return Promise.resolve(events.map(() => ({ ok: false, error: this.reason })));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

export class SinkFactory {
  private readonly sinks = new Map<string, { version: string; sink: Sink }>();
  private broker: Promise<NatsBroker> | undefined;

  constructor(
    private readonly sealer: Sealer,
    private readonly opts: SinkOptions,
    private readonly log: Logger,
  ) {}

  /** The sink of this version of a subscription (a changed subscription gets a new one; the old is closed). */
  async sinkOf(tenantId: number, s: SubscriptionRow): Promise<Sink> {
    // A rotation's overlap that ended changes the secrets: a version of its own.
    const version = `${s.updated}:${s.previousUntil !== null && s.previousUntil * 1000 > Date.now()}`;
    const known = this.sinks.get(s.id);
    if (known?.version === version) return known.sink;
    const sink = s.kind === 'webhook' ? await this.webhook(tenantId, s) : await this.nats(tenantId, s);
    // A broker away is asked again next time.
    if (sink instanceof Unavailable) return sink;
    this.sinks.set(s.id, { version, sink });
    await known?.sink.close();
    return sink;
  }

  /** The broker, connected on first use; undefined when none is configured. A failed connection is tried again next time. */
  async natsBroker(): Promise<NatsBroker | undefined> {
    if (!this.opts.natsUrl) return undefined;
    this.broker ??= NatsBroker.connect(this.opts.natsUrl, { name: 'strongroom' }).catch((err: unknown) => {
      this.broker = undefined;
      throw err;
    });
    return this.broker;
  }

  async close(): Promise<void> {
    for (const { sink } of this.sinks.values()) await sink.close();
    this.sinks.clear();
    const broker = this.broker;
    this.broker = undefined;
    await (await broker?.catch(() => undefined))?.close();
  }

  /** The secrets a webhook signs with: the current one, and the previous one until its overlap ends. */
  async secretsOf(tenantId: number, s: SubscriptionRow, now = Date.now()): Promise<string[]> {
    const sealed = [s.secret, s.previousUntil !== null && s.previousUntil * 1000 > now ? s.previousSecret : null].filter((b): b is Buffer => b !== null);
    return Promise.all(sealed.map((blob) => this.sealer.open<string>(tenantId, SECRET_TABLE, s.id, blob)));
  }

  private async webhook(tenantId: number, s: SubscriptionRow): Promise<Sink> {
    const { allow, timeoutMs, maxResponseBytes, concurrency } = this.opts;
    return new WebhookSink({ url: s.target, secrets: await this.secretsOf(tenantId, s), allow, timeoutMs, maxResponseBytes, concurrency, userAgent: 'Strongroom-Webhooks/1' });
  }

  private async nats(tenantId: number, s: SubscriptionRow): Promise<Sink> {
    // A subject outside the tenant's own prefix (the prefix setting changed) is never published to.
    if (!s.target.startsWith(natsPrefix(this.opts.natsPrefix, tenantId))) return new Unavailable(`the subject is outside this tenant's prefix ${natsPrefix(this.opts.natsPrefix, tenantId)}`);
    try {
      const broker = await this.natsBroker();
      return broker ? broker.sink(s.target, `:${s.id}`) : new Unavailable('NATS is not configured (STRONGROOM_NATS_URL)');
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'NATS unavailable');
      return new Unavailable('NATS is unavailable');
    }
  }
}
