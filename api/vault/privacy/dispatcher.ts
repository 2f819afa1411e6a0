// Delivers each tenant's privacy events from its outbox (docs/events.md). Every replica runs the timer; per tenant
// only the one holding the tenant's lease (a session advisory lock: SessionLeases) delivers, and another takes over
// when it stops. A pass fans new events out into deliveries, then tries each subscription's due deliveries: one
// person's in the order they happened, others side by side; a failure is retried with exponential back-off and
// jitter until STRONGROOM_EVENTS_RETRY_SECONDS, then dead-lettered. A delivery is marked done only once its sink
// acknowledged it: an event is delivered at least once, and receivers de-duplicate by its id.
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import type { SessionLeases } from '../../store/session-locks.js';
import type { Attempt, DueDelivery } from '../../store/privacy-events.js';
import type { SubscriptionRow } from '../../store/event-subscriptions.js';
import { isTenantGone } from '../../store/errors.js';
import { Job } from '../jobs/job.js';
import { cloudEventBody } from './events.js';
import type { Outbox } from './outbox.js';
import type { Sink, DeliveryResult } from './sink.js';
import type { SinkFactory } from './sinks.js';
import { eventsDelivered, eventsBacklog, eventsBacklogAge, eventsDead, erasuresPending, erasuresOverdue } from '../../metrics.js';

/** Events fanned out per statement, and deliveries tried per round. */
const FAN_OUT = 2_000;
const ROUND = 2_000;
/** Back-off: from STRONGROOM_EVENTS_RETRY_FIRST_MS, doubling, at most 10 min, each with ±50 % jitter. */
const LONGEST_RETRY_MS = 600_000;

export interface DispatchOptions {
  seconds: number;
  retrySeconds: number;
  retryFirstMs: number;
  /** How often each tenant's backlog and erasures are measured (and overdue erasures announced). */
  measureSeconds: number;
}

/** When a failed delivery of an event `ageMs` old, tried `attempts` times now, is tried again; null: never (dead). */
export function nextTry(attempts: number, ageMs: number, now: number, retry: { forMs: number; firstMs: number }, random = Math.random): number | null {
  const base = Math.min(LONGEST_RETRY_MS, retry.firstMs * 2 ** Math.min(attempts, 20));
  const delay = Math.round(base * (0.5 + random()));
  return ageMs + delay > retry.forMs ? null : now + delay;
}

/** How far past the dispatcher's clock an event's time may be (another replica's clock): further, it is not sent. */
const FUTURE_MS = 3_600_000;
/**
 * The largest event sent: the vault's own are a few KiB at most (a hundred field names); a larger one, put into the
 * outbox by other hands, would be refused by receivers (NATS takes 1 MiB at most) and retried for its whole window.
 */
const MAX_EVENT_CHARS = 64 * 1024;

/**
 * Delivers what can be sent of `batch` (one result per delivery, in order). An event that cannot be made into a
 * message (a time no date has, or an hour past now, or data past 64 KiB, written into the outbox by other hands: the
 * vault's own always can) is not sent but dead-lettered at once, so that it never holds back the deliveries after it.
 */
async function deliverable(tenantId: number, sink: Sink, batch: DueDelivery[]): Promise<DeliveryResult[]> {
  const latest = Date.now() + FUTURE_MS;
  const bodies = batch.map((d) => {
    // An event from the future: none of the vault's (stamped as it is written), and its retries would never end.
    if (!(d.event.time <= latest)) return undefined;
    try {
      const body = cloudEventBody(tenantId, d.event);
      return body.length <= MAX_EVENT_CHARS ? body : undefined;
    } catch {
      return undefined;
    }
  });
  const sendable = batch.flatMap((d, i) => (bodies[i] === undefined ? [] : [{ id: d.event.uuid, body: bodies[i], time: Math.floor(d.event.time / 1000) }]));
  const sent = sendable.length ? await sink.deliver(sendable) : [];
  let next = 0;
  return bodies.map((body) => (body === undefined ? { ok: false, unsendable: true, error: 'the event cannot be made into a message' } : sent[next++]!));
}

/**
 * How long after a commit its tenant is dispatched: the events of the writes committed meanwhile go in the same
 * pass (under load, one pass per batch of writes rather than per write).
 */
const GATHER_MS = 100;

export class Dispatcher extends Job {
  private readonly kicked = new Set<number>();
  private readonly measured = new Map<number, number>();
  private lastFull = 0;
  /**
   * Each subscription's deliveries under way, by subscription id: they run on their own, so that a slow or silent
   * receiver holds up its own deliveries only, never another subscription's or another tenant's.
   */
  private readonly delivering = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly opts: DispatchOptions,
    private readonly deps: { sinks: SinkFactory; outbox: Outbox; leases: SessionLeases | undefined },
  ) {
    super('event delivery', opts.seconds, log);
  }

  /** Events of `tenantId` committed here: delivered now rather than at the next tick. */
  committed(tenantId: number): void {
    if (!this.opts.seconds || this.stopping) return;
    this.kicked.add(tenantId);
    this.kickSoon(GATHER_MS);
  }

  /**
   * A pass over the tenants with events committed here since the last one, or, once every `seconds`, over every
   * tenant (the events other replicas committed, retries come due).
   */
  protected async pass(): Promise<number> {
    let delivered = 0;
    const kicked = [...this.kicked];
    this.kicked.clear();
    const full = Date.now() - this.lastFull >= this.opts.seconds * 1000 * 0.9 || !kicked.length;
    if (full) this.lastFull = Date.now();
    const tenants = full ? (await this.db.global().tenants.all()).map((t) => t.id) : kicked;
    // Tenants with events committed here first.
    for (const id of [...new Set([...kicked, ...tenants])]) {
      if (this.stopping) break;
      if (this.deps.leases && !(await this.deps.leases.hold(`strongroom:events:${id}`))) continue;
      try {
        delivered += await this.dispatchTenant(id);
      } catch (err) {
        if (isTenantGone(err)) {
          await this.deps.leases?.release(`strongroom:events:${id}`);
          continue;
        }
        this.log.error({ err: { type: (err as Error).name, message: (err as Error).message }, tenantId: id }, 'event delivery failed');
      }
    }
    // More came in during the pass: another soon.
    if (this.kicked.size) this.kickSoon(GATHER_MS);
    return delivered;
  }

  override async stop(): Promise<void> {
    await super.stop();
    await Promise.all(this.delivering.values());
    await this.deps.sinks.close();
  }

  /**
   * One tenant: its new events fanned out, and each subscription with deliveries due set going (unless it is still
   * delivering). Answers how many subscriptions were set going.
   */
  async dispatchTenant(tenantId: number): Promise<number> {
    while ((await this.db.write(tenantId, false, (tx) => tx.privacyEvents.fanOut(FAN_OUT, Date.now()))) >= FAN_OUT) {
      if (this.stopping) return 0;
    }
    let started = 0;
    // On the main pool, as the tenant's role: a pass over every tenant holds no connection per tenant (tenant-pools.ts).
    const due = await this.db.write(tenantId, true, (tx) => tx.eventSubscriptions.withDeliveriesDue(Date.now()));
    for (const s of due) {
      if (this.delivering.has(s.id) || this.stopping) continue;
      const run = this.deliverAll(tenantId, s)
        .then((delivered) => {
          // More may be due now (a full round went through): the tenant is looked at again soon.
          if (delivered) this.committed(tenantId);
        })
        .catch((err: unknown) => {
          if (!isTenantGone(err)) this.log.error({ err: { type: (err as Error).name, message: (err as Error).message }, tenantId, subscription: s.id }, 'event delivery failed');
        })
        .finally(() => this.delivering.delete(s.id));
      this.delivering.set(s.id, run);
      started++;
    }
    await this.measure(tenantId);
    return started;
  }

  /** A subscription's due deliveries, round after round while some are due. */
  private async deliverAll(tenantId: number, subscription: SubscriptionRow): Promise<number> {
    const sink = await this.deps.sinks.sinkOf(tenantId, subscription);
    let delivered = 0;
    for (;;) {
      if (this.stopping) break;
      const due = await this.db.stores(tenantId).privacyEvents.due(subscription.id, Date.now(), ROUND);
      if (!due.length) break;
      const { ok, tried } = await this.deliverRound(tenantId, subscription, sink, due);
      delivered += ok;
      // Nothing went through: the rest waits for its retry time.
      if (!ok || tried < ROUND) break;
    }
    return delivered;
  }

  /**
   * One round: each person's due deliveries in order (the next only once the one before is acknowledged), people side
   * by side. Answers how many were delivered and tried.
   */
  private async deliverRound(tenantId: number, subscription: SubscriptionRow, sink: Sink, due: DueDelivery[]): Promise<{ ok: number; tried: number }> {
    const lines = new Map<string, DueDelivery[]>();
    due.forEach((d, i) => {
      const key = d.event.person ?? `#${i}`;
      const line = lines.get(key);
      if (line) line.push(d);
      else lines.set(key, [d]);
    });
    let ok = 0;
    let tried = 0;
    let heads = [...lines.values()];
    while (heads.length && !this.stopping) {
      const batch = heads.map((line) => line[0]!);
      const results = await deliverable(tenantId, sink, batch);
      await this.record(tenantId, subscription, batch, results);
      tried += batch.length;
      ok += results.filter((r) => r.ok).length;
      heads = heads.filter((line, i) => results[i]!.ok && line.length > 1).map((line) => line.slice(1));
    }
    return { ok, tried };
  }

  private async record(tenantId: number, subscription: SubscriptionRow, batch: DueDelivery[], results: DeliveryResult[]): Promise<void> {
    const now = Date.now();
    const retry = { forMs: this.opts.retrySeconds * 1000, firstMs: this.opts.retryFirstMs };
    const attempts: Attempt[] = batch.map((d, i) => {
      const r = results[i]!;
      const next = r.ok || r.unsendable ? null : nextTry(d.attempts, now - d.event.time, now, retry);
      return { event: d.event.id, begun: d.nextTry, ok: r.ok, nextTry: next, error: r.ok ? null : (r.error ?? 'failed'), status: r.status ?? null };
    });
    const stores = this.db.stores(tenantId);
    await stores.privacyEvents.record(subscription.id, attempts, now);
    for (const a of attempts) eventsDelivered.inc({ kind: subscription.kind, result: a.ok ? 'delivered' : a.nextTry === null ? 'dead' : 'failed' });
    // A recipient that answered an erasure with {"erased": true} has confirmed it.
    const erased = batch.filter((d, i) => results[i]!.erased && d.event.type === 'person.erased');
    for (const d of erased) await stores.eventSubscriptions.confirm(d.event.uuid, [subscription.id], 'webhook', `webhook ${subscription.id}`, Math.floor(now / 1000));
    const dead = attempts.filter((a) => a.ok === false && a.nextTry === null).length;
    if (dead) this.log.warn({ tenantId, subscription: subscription.id, dead }, 'event deliveries dead-lettered');
  }

  /** Now and then: the tenant's backlog and erasures as metrics; erasures whose confirmation is overdue announced. */
  private async measure(tenantId: number): Promise<void> {
    const now = Date.now();
    if (now - (this.measured.get(tenantId) ?? 0) < this.opts.measureSeconds * 1000) return;
    this.measured.set(tenantId, now);
    const stores = this.db.stores(tenantId);
    const seconds = Math.floor(now / 1000);
    const overdue = await this.db.write(tenantId, false, (tx) => tx.eventSubscriptions.overdue(seconds, 1_000));
    if (overdue.length) {
      await this.deps.outbox.publish(stores, overdue.map((o) => ({ type: 'erasure.overdue', person: o.person, data: { erasure: o.event, subscription: o.subscription } })), seconds);
      this.kicked.add(tenantId);
    }
    const tenant = String(tenantId);
    const [backlog, erasures] = await this.db.write(tenantId, true, async (tx) => [await tx.privacyEvents.backlog(), await tx.eventSubscriptions.pending(seconds)] as const);
    eventsBacklog.set({ tenant }, backlog.events + backlog.deliveries);
    eventsBacklogAge.set({ tenant }, backlog.oldest === null ? 0 : Math.max(0, (now - backlog.oldest) / 1000));
    eventsDead.set({ tenant }, backlog.dead);
    erasuresPending.set({ tenant }, erasures.pending);
    erasuresOverdue.set({ tenant }, erasures.overdue);
  }
}
