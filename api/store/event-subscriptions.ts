// SQL for a tenant's event subscriptions (who receives which privacy events, and how) and for the confirmations
// each erasure is owed by its recipients (Tenant0016PrivacyEvents).
import { TenantTables } from './tenant-tables.js';

export type SubscriptionKind = 'webhook' | 'nats';

/** A subscription as stored. Its signing secrets are sealed under the tenant's key. */
export interface SubscriptionRow {
  id: string;
  kind: SubscriptionKind;
  target: string;
  types: string[];
  fields: string[] | null;
  briefs: string[] | null;
  description: string | null;
  confirms: boolean;
  confirmRole: string | null;
  secret: Buffer | null;
  previousSecret: Buffer | null;
  previousUntil: number | null;
  active: boolean;
  created: number;
  updated: number;
}

/** One recipient's confirmation of one erasure. */
export interface ConfirmationRow {
  event: string;
  subscription: string;
  description: string | null;
  person: string;
  request: string | null;
  erasedAt: number;
  due: number;
  confirmedAt: number | null;
  via: string | null;
  /** Who confirmed: `role <name>` (the recipient's confirming role), `tenant-admin` or `root`, `webhook <id>`. */
  by: string | null;
  /** The subscription was deleted since (its confirmation, or its silence, stays on record). */
  deleted: boolean;
}

const COLUMNS = `id, kind, target, types, fields, briefs, description, confirms, confirm_role, secret, previous_secret, previous_until, active, created, updated`;

function subscriptionOf(r: Record<string, unknown>): SubscriptionRow {
  return {
    id: r.id as string,
    kind: r.kind as SubscriptionKind,
    target: r.target as string,
    types: r.types as string[],
    fields: (r.fields as string[] | null) ?? null,
    briefs: (r.briefs as string[] | null) ?? null,
    description: (r.description as string | null) ?? null,
    confirms: r.confirms as boolean,
    confirmRole: (r.confirm_role as string | null) ?? null,
    secret: (r.secret as Buffer | null) ?? null,
    previousSecret: (r.previous_secret as Buffer | null) ?? null,
    previousUntil: r.previous_until == null ? null : Number(r.previous_until),
    active: r.active as boolean,
    created: Number(r.created),
    updated: Number(r.updated),
  };
}

export class EventSubscriptionStore extends TenantTables {
  async create(s: Omit<SubscriptionRow, 'previousSecret' | 'previousUntil' | 'updated'>): Promise<void> {
    await this.sql(
      `insert into ${this.t}.event_subscriptions (id, kind, target, types, fields, briefs, description, confirms, confirm_role, secret, active, created, updated)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`,
      [s.id, s.kind, s.target, s.types, s.fields, s.briefs, s.description, s.confirms, s.confirmRole, s.secret, s.active, s.created],
    );
  }

  /** Serialises changes to the tenant's set of subscriptions until the transaction ends (its bound is counted under it). */
  async lockForChange(): Promise<void> {
    await this.sql('select pg_advisory_xact_lock(hashtext($1))', [`strongroom:subscriptions:${this.tenantId}`]);
  }

  /** How many subscriptions the tenant has (a bound on how many it may make). */
  async count(): Promise<number> {
    const [r] = await this.sql<{ n: number }>(`select count(*)::int as n from ${this.t}.event_subscriptions where deleted is null`);
    return Number(r?.n ?? 0);
  }

  async get(id: string): Promise<SubscriptionRow | null> {
    const [r] = await this.sql(`select ${COLUMNS} from ${this.t}.event_subscriptions where id = $1 and deleted is null`, [id]);
    return r ? subscriptionOf(r) : null;
  }

  /** Active subscriptions with deliveries due at `now` (ms). */
  async withDeliveriesDue(now: number): Promise<SubscriptionRow[]> {
    const rows = await this.sql(
      `select ${COLUMNS} from ${this.t}.event_subscriptions s where s.active and s.deleted is null
         and exists (select from ${this.t}.event_deliveries d where d.subscription = s.id and d.status = 'pending' and d.next_try <= $1)`,
      [now],
    );
    return rows.map(subscriptionOf);
  }

  async list(): Promise<SubscriptionRow[]> {
    return (await this.sql(`select ${COLUMNS} from ${this.t}.event_subscriptions where deleted is null order by created, id`)).map(subscriptionOf);
  }

  /** Replaces the stored fields of a subscription (a read-modify-write under the row's lock: `getForUpdate`). */
  async update(s: SubscriptionRow): Promise<void> {
    await this.sql(
      `update ${this.t}.event_subscriptions set target = $2, types = $3, fields = $4, briefs = $5, description = $6, confirms = $7,
         confirm_role = $8, secret = $9, previous_secret = $10, previous_until = $11, active = $12, updated = $13 where id = $1`,
      [s.id, s.target, s.types, s.fields, s.briefs, s.description, s.confirms, s.confirmRole, s.secret, s.previousSecret, s.previousUntil, s.active, s.updated],
    );
  }

  async getForUpdate(id: string): Promise<SubscriptionRow | null> {
    const [r] = await this.sql(`select ${COLUMNS} from ${this.t}.event_subscriptions where id = $1 and deleted is null for update`, [id]);
    return r ? subscriptionOf(r) : null;
  }

  /**
   * Ends a subscription: nothing more is sent to it (its pending deliveries go), but the row stays, deleted, with the
   * confirmations it owed and gave: the evidence of an erasure's fan-out cannot be removed. False when there was none.
   */
  async remove(id: string, now: number): Promise<boolean> {
    const [r] = await this.sql<{ n: number }>(
      `with ended as (update ${this.t}.event_subscriptions set deleted = $2, active = false, secret = null, previous_secret = null where id = $1 and deleted is null returning id),
       gone as (delete from ${this.t}.event_deliveries d using ended where d.subscription = ended.id and d.status = 'pending' returning 1)
       select (select count(*) from ended)::int as n, (select count(*) from gone)::int as pending`,
      [id, now],
    );
    return Number(r?.n ?? 0) > 0;
  }

  /**
   * Records a recipient's confirmation of an erasure (the event's uuid) for the subscriptions named: answers those
   * it confirmed now or had confirmed before.
   */
  async confirm(event: string, subscriptions: readonly string[], via: string, by: string, now: number): Promise<string[]> {
    const rows = await this.sql<{ subscription: string }>(
      `update ${this.t}.erasure_confirmations set confirmed_at = coalesce(confirmed_at, $3), confirmed_via = coalesce(confirmed_via, $4), confirmed_by = coalesce(confirmed_by, $5)
        where event = $1 and subscription = any($2::uuid[]) returning subscription`,
      [event, subscriptions, now, via, by],
    );
    return rows.map((r) => r.subscription);
  }

  /** The confirmations owed for one person's erasures, or for the erasure a request asked for; at most `limit`. */
  async confirmations(by: { person?: string; request?: string; event?: string }, limit: number): Promise<ConfirmationRow[]> {
    const [column, value] = by.event ? ['c.event', by.event] : by.request ? ['c.request', by.request] : ['c.person', by.person];
    const rows = await this.sql(
      `select c.event, c.subscription, s.description, s.deleted, c.person, c.request, c.erased_at, c.due, c.confirmed_at, c.confirmed_via, c.confirmed_by
         from ${this.t}.erasure_confirmations c join ${this.t}.event_subscriptions s on s.id = c.subscription
        where ${column} = $1 order by c.erased_at, c.event, s.created limit $2`,
      [value, limit],
    );
    return rows.map((r) => ({
      event: r.event as string,
      subscription: r.subscription as string,
      description: (r.description as string | null) ?? null,
      person: r.person as string,
      request: (r.request as string | null) ?? null,
      erasedAt: Number(r.erased_at),
      due: Number(r.due),
      confirmedAt: r.confirmed_at == null ? null : Number(r.confirmed_at),
      via: (r.confirmed_via as string | null) ?? null,
      by: (r.confirmed_by as string | null) ?? null,
      deleted: r.deleted != null,
    }));
  }

  /** Confirmations past their due time not yet announced: marked announced, and answered (at most `limit`). */
  async overdue(now: number, limit: number): Promise<{ event: string; subscription: string; person: string }[]> {
    return this.sql(
      `update ${this.t}.erasure_confirmations c set overdue_noted = true
        where (c.event, c.subscription) in (select event, subscription from ${this.t}.erasure_confirmations
                where confirmed_at is null and not overdue_noted and due < $1 limit $2)
        returning c.event, c.subscription, c.person`,
      [now, limit],
    );
  }

  /** Confirmations still owed, and those of them past their due time. */
  async pending(now: number): Promise<{ pending: number; overdue: number }> {
    const [r] = await this.sql<{ pending: number; overdue: number }>(
      `select count(*)::int as pending, count(*) filter (where due < $1)::int as overdue from ${this.t}.erasure_confirmations where confirmed_at is null`,
      [now],
    );
    return { pending: Number(r?.pending ?? 0), overdue: Number(r?.overdue ?? 0) };
  }
}
