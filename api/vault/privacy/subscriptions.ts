// Event subscriptions (docs/events.md): where a tenant's privacy events go (a webhook URL past the SSRF guard, or a
// NATS subject under the tenant's own prefix that a JetStream stream captures), which ones, and the webhook's signing
// secret: made here, shown once, sealed under the tenant's key, rotated with an overlap during which both sign.
import { randomUUID } from 'node:crypto';
import type { Stores } from '../../store/stores.js';
import type { SubscriptionRow } from '../../store/event-subscriptions.js';
import type { Sealer } from '../sealed.js';
import { badRequest, conflict, notFound, UnavailableError } from '../../errors.js';
import { judgeTarget, type AllowList } from './ssrf.js';
import { newWebhookSecret } from './webhook.js';
import { natsPrefix, SECRET_TABLE, type SinkFactory } from './sinks.js';
import type { DeliveryResult } from './sink.js';
import { sourceOf } from './events.js';
import { CloudEvent } from 'cloudevents';

/** Where a subscription delivers: exactly one of a webhook URL and a NATS subject. */
export interface Target {
  url?: string | undefined;
  nats?: string | undefined;
}

/** What a subscription receives and who confirms its erasures. */
/** An empty list filters nothing out. */
const filter = (list: string[] | null | undefined) => (list?.length ? list : null);

export interface Filters {
  types?: string[] | undefined;
  fields?: string[] | null | undefined;
  briefs?: string[] | null | undefined;
  description?: string | null | undefined;
  confirmerasures?: boolean | undefined;
  confirmrole?: string | null | undefined;
  active?: boolean | undefined;
}

export interface SubscriptionSettings {
  allow: AllowList;
  maxSubscriptions: number;
  natsPrefix: string;
}

/** A subscription as the operations answer it: never its secret. */
export function presentSubscription(s: SubscriptionRow, now = Date.now()) {
  return {
    subscriptionid: s.id,
    kind: s.kind,
    ...(s.kind === 'webhook' ? { url: s.target } : { nats: s.target }),
    types: s.types,
    fields: s.fields,
    briefs: s.briefs,
    description: s.description,
    confirmerasures: s.confirms,
    confirmrole: s.confirmRole,
    active: s.active,
    created: s.created,
    updated: s.updated,
    /** Until when the previous secret still signs (unix seconds), during a rotation's overlap. */
    previoussecretuntil: s.previousUntil !== null && s.previousUntil * 1000 > now ? s.previousUntil : null,
  };
}

export class Subscriptions {
  constructor(
    private readonly sealer: Sealer,
    private readonly sinks: SinkFactory,
    private readonly settings: SubscriptionSettings,
  ) {}

  /** A new subscription; a webhook's secret is answered here and never again. */
  async create(stores: Stores, input: Target & Filters & { types: string[] }, now: number): Promise<{ id: string; secret?: string; warnings?: string[] }> {
    // Counted under the tenant's lock on its subscriptions: concurrent creations cannot pass the bound together.
    await stores.eventSubscriptions.lockForChange();
    if ((await stores.eventSubscriptions.count()) >= this.settings.maxSubscriptions) {
      throw conflict(`This tenant has ${this.settings.maxSubscriptions} event subscriptions already (STRONGROOM_EVENTS_MAX_SUBSCRIPTIONS)`);
    }
    const { kind, target, warning } = await this.checkedTarget(input, stores.tenantId);
    await this.checkRole(stores, input.confirmrole);
    const id = randomUUID();
    const secret = kind === 'webhook' ? newWebhookSecret() : undefined;
    const sealed = secret === undefined ? null : await this.sealer.seal(stores.tenantId, { table: SECRET_TABLE, rowId: id, field: 'secret' }, secret);
    await stores.eventSubscriptions.create({
      id,
      kind,
      target,
      types: input.types,
      fields: filter(input.fields),
      briefs: filter(input.briefs),
      description: input.description ?? null,
      confirms: input.confirmerasures ?? true,
      confirmRole: input.confirmrole ?? null,
      secret: sealed,
      active: input.active ?? true,
      created: now,
    });
    return { id, ...(secret === undefined ? {} : { secret }), ...(warning ? { warnings: [warning] } : {}) };
  }

  /**
   * Changes what was sent; `rotate` makes a new secret (answered once) and keeps the previous one signing for
   * `overlap` seconds, so receivers can take the new one without missing a delivery.
   */
  async update(stores: Stores, id: string, input: Target & Filters & { rotate?: boolean; overlap?: number }, now: number): Promise<{ secret?: string; warnings?: string[] }> {
    const s = await this.existing(stores, id, true);
    let warning: string | undefined;
    let newDestination = false;
    if (input.url !== undefined || input.nats !== undefined) {
      const { kind, target, warning: w } = await this.checkedTarget(input, stores.tenantId);
      warning = w;
      if (kind !== s.kind) throw badRequest(`Invalid API request parameter: ${kind === 'webhook' ? 'url' : 'nats'}: this subscription delivers to ${s.kind === 'webhook' ? 'a webhook (url)' : 'NATS (nats)'}`);
      // A new destination gets a new secret, with no overlap: it cannot replay what it receives to the old one.
      if (kind === 'webhook' && target !== s.target) newDestination = true;
      s.target = target;
    }
    if (input.types !== undefined) s.types = input.types;
    if (input.fields !== undefined) s.fields = filter(input.fields);
    if (input.briefs !== undefined) s.briefs = filter(input.briefs);
    if (input.description !== undefined) s.description = input.description;
    if (input.confirmerasures !== undefined) s.confirms = input.confirmerasures;
    if (input.confirmrole !== undefined) {
      await this.checkRole(stores, input.confirmrole);
      s.confirmRole = input.confirmrole;
    }
    if (input.active !== undefined) s.active = input.active;
    let secret: string | undefined;
    if (input.rotate || newDestination) {
      if (s.kind !== 'webhook') throw badRequest('Invalid API request parameter: rotatesecret: only webhooks have a signing secret');
      secret = newWebhookSecret();
      s.previousSecret = newDestination ? null : s.secret;
      s.previousUntil = newDestination ? null : now + (input.overlap ?? 86_400);
      s.secret = await this.sealer.seal(stores.tenantId, { table: SECRET_TABLE, rowId: id, field: 'secret' }, secret);
    }
    // Never the same version twice: the dispatcher makes a new sink for each.
    s.updated = Math.max(now, s.updated + 1);
    await stores.eventSubscriptions.update(s);
    return { ...(secret === undefined ? {} : { secret }), ...(warning ? { warnings: [warning] } : {}) };
  }

  /** A confirming role must exist (a name given out later must not inherit confirmations). */
  private async checkRole(stores: Stores, name: string | null | undefined): Promise<void> {
    if (!name) return;
    if (!(await stores.roles.role({ name }))) throw badRequest(`Invalid API request parameter: confirmrole: no role is named ${name}`);
  }

  async existing(stores: Stores, id: string, forUpdate = false): Promise<SubscriptionRow> {
    const s = forUpdate ? await stores.eventSubscriptions.getForUpdate(id) : await stores.eventSubscriptions.get(id);
    if (!s) throw notFound('Event subscription not found');
    return s;
  }

  /** Sends one signed test event (type `subscription.test`, no person) to the subscription now, outside the outbox. */
  async test(stores: Stores, id: string): Promise<DeliveryResult> {
    const s = await this.existing(stores, id);
    const sink = await this.sinks.sinkOf(stores.tenantId, s);
    const uuid = randomUUID();
    const now = Date.now();
    const body = JSON.stringify(
      new CloudEvent({ id: uuid, source: sourceOf(stores.tenantId), type: 'subscription.test', time: new Date(now).toISOString(), datacontenttype: 'application/json', data: { tenant: stores.tenantId, subscription: id } }),
    );
    const [result] = await sink.deliver([{ id: uuid, body, time: Math.floor(now / 1000) }]);
    return result!;
  }


  private async checkedTarget(input: Target, tenantId: number): Promise<{ kind: 'webhook' | 'nats'; target: string; warning?: string }> {
    if ((input.url === undefined) === (input.nats === undefined)) throw badRequest('Invalid API request parameter: url or nats: exactly one of them');
    if (input.url !== undefined) {
      const verdict = await judgeTarget(input.url, this.settings.allow);
      if (verdict.refused) throw badRequest(`Invalid API request parameter: url: ${verdict.refused}`);
      const host = new URL(input.url).hostname;
      return { kind: 'webhook', target: input.url, ...(verdict.unresolved ? { warning: `url: ${host} does not resolve now; deliveries are retried until it does` } : {}) };
    }
    const subject = input.nats!;
    const prefix = natsPrefix(this.settings.natsPrefix, tenantId);
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(subject)) throw badRequest('Invalid API request parameter: nats: a subject of letters, digits, - and _ separated by dots, without wildcards');
    if (!subject.startsWith(prefix)) throw badRequest(`Invalid API request parameter: nats: this tenant's subjects begin with ${prefix}`);
    const broker = await this.sinks.natsBroker().catch(() => {
      throw new UnavailableError('NATS is unavailable: try again');
    });
    if (!broker) throw badRequest('Invalid API request parameter: nats: this vault has no NATS server (STRONGROOM_NATS_URL)');
    if (!(await broker.streamFor(subject))) throw badRequest(`Invalid API request parameter: nats: no JetStream stream captures ${subject}`);
    return { kind: 'nats', target: subject };
  }
}
