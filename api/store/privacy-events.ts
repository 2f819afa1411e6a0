// SQL for a tenant's privacy events (Tenant0016PrivacyEvents): the outbox, its fan-out into one delivery per event
// and subscription, the deliveries due (one person's in order), their outcomes, replays and retention.
import { TenantTables } from './tenant-tables.js';

/** An event as the outbox holds it. `time` is in milliseconds; `data` carries ids, names and counts, never a value. */
export interface PrivacyEventRow {
  id: number;
  uuid: string;
  type: string;
  time: number;
  person: string | null;
  data: Record<string, unknown>;
}

/** A delivery the dispatcher may try now, with its event. */
export interface DueDelivery {
  event: PrivacyEventRow;
  attempts: number;
  /** Its next try as read (ms): an EventReplay during the attempt moves it, and the attempt's outcome then yields. */
  nextTry: number;
}

/** The outcome of one attempt: delivered, tried again at `nextTry` (ms), or dead (`nextTry` null). */
export interface Attempt {
  event: number;
  /** The delivery's next try when the attempt began (DueDelivery.nextTry). */
  begun: number;
  ok: boolean;
  nextTry: number | null;
  error: string | null;
  status: number | null;
}

/** A delivery as EventDeliveryList shows it. */
export interface DeliveryRow {
  subscription: string;
  eventId: number;
  uuid: string;
  type: string;
  time: number;
  person: string | null;
  status: 'pending' | 'delivered' | 'dead';
  attempts: number;
  nextTry: number | null;
  lastError: string | null;
  lastStatus: number | null;
  doneAt: number | null;
}

/** The most deliveries a list counts (its `total` stops there). */
export const COUNT_CAP = 10_000;

function eventOf(r: Record<string, unknown>): PrivacyEventRow {
  return {
    id: Number(r.id),
    uuid: r.uuid as string,
    type: r.type as string,
    time: Number(r.time),
    person: (r.person as string | null) ?? null,
    data: r.data as Record<string, unknown>,
  };
}

/**
 * Which of a subscription's events match its filters (the subscription `s`, the event `e`). An event whose `fields`
 * is not a list (none the vault writes: one written into the outbox by other hands) names no field.
 */
const MATCHES = `e.type = any(s.types)
  and (s.fields is null or e.type <> 'person.updated' or exists (select from jsonb_array_elements_text(
    case jsonb_typeof(e.data->'fields') when 'array' then e.data->'fields' else '[]' end) f where f = any(s.fields)))
  and (s.briefs is null or e.data->>'brief' is null or e.data->>'brief' = any(s.briefs))`;

/**
 * The common table expressions that publish events, as plain INSERTs (the tenant's role may add to the outbox, never
 * change it: tenant-roles.ts): the events (`rows`, the parameter holding a JSON array of {uuid, type, time, person,
 * data}) and, for each `person.erased`, a confirmation owed by every subscription (paused ones too: they deliver once
 * resumed) that receives erasures and confirms them, due at `due` (a parameter, unix seconds). A deleted
 * subscription is kept as evidence of what it owed and confirmed. What Tenant0016PrivacyEvents' events_publish does.
 */
export function publishCtes(t: string, rows: string, due: string): string {
  return `published as (insert into ${t}.privacy_events (uuid, type, "time", person, data)
      select x.uuid, x.type, x."time", x.person, x.data
        from jsonb_to_recordset(${rows}::jsonb) as x(uuid uuid, type text, "time" bigint, person uuid, data jsonb)
      returning uuid, type, "time", person, data),
    owed as (insert into ${t}.erasure_confirmations (event, subscription, person, request, erased_at, due)
      select x.uuid, s.id, x.person, (x.data->>'request')::uuid, x."time" / 1000, ${due}::bigint
        from published x join ${t}.event_subscriptions s on s.deleted is null and s.confirms and 'person.erased' = any(s.types)
       where x.type = 'person.erased' and x.person is not null)`;
}

export class PrivacyEventStore extends TenantTables {
  /** Events written on their own (a read's, the sweeper's, a checkpoint's): JSON rows as `publishCtes` takes them. */
  async publish(events: string, due: number): Promise<void> {
    await this.sql(`with ${publishCtes(this.t, '$1', '$2')} select`, [events, due]);
  }

  /**
   * Fans out up to `limit` new events: each becomes a pending delivery for every active subscription that matches,
   * in one statement. Rows another dispatcher holds are skipped. Answers how many events it took.
   */
  async fanOut(limit: number, now: number): Promise<number> {
    const [r] = await this.sql<{ n: number }>(
      `with batch as (select id from ${this.t}.privacy_events where not fanned order by id limit $1 for update skip locked),
       marked as (update ${this.t}.privacy_events e set fanned = true from batch where e.id = batch.id returning e.id, e.type, e."time", e.person, e.data),
       made as (insert into ${this.t}.event_deliveries (subscription, event, person, next_try)
         select s.id, e.id, e.person, $2 from marked e join ${this.t}.event_subscriptions s on s.deleted is null and e."time" >= s.created * 1000 and ${MATCHES}
         on conflict do nothing returning 1)
       select (select count(*) from marked)::int as n, (select count(*) from made)::int as made`,
      [limit, now],
    );
    return Number(r?.n ?? 0);
  }

  /**
   * Up to `limit` deliveries of one subscription due at `now`, oldest event first; none of a person whose earlier
   * event waits for a retry (one person's events reach a recipient in the order they happened).
   */
  async due(subscription: string, now: number, limit: number): Promise<DueDelivery[]> {
    const rows = await this.sql(
      // The deliveries are chosen first and their events looked up one by one: joined, the planner read the events
      // table from its start on every round, a cost growing with the tenant's outbox, not with the round.
      `select e.id, e.uuid, e.type, e."time", e.person, e.data, d.attempts, d.next_try
         from (select d.event, d.attempts, d.next_try from ${this.t}.event_deliveries d
                where d.subscription = $1 and d.status = 'pending' and d.next_try <= $2
                  and (d.person is null or not exists (select from ${this.t}.event_deliveries b
                        where b.subscription = d.subscription and b.person = d.person and b.status = 'pending' and b.event < d.event and b.next_try > $2))
                order by d.event limit $3) d
        cross join lateral (select * from ${this.t}.privacy_events e where e.id = d.event offset 0) e
        order by d.event`,
      [subscription, now, limit],
    );
    return rows.map((r) => ({ event: eventOf(r), attempts: Number(r.attempts), nextTry: Number(r.next_try) }));
  }

  /**
   * The outcomes of one round of attempts, in one statement. A delivery replayed while its attempt was under way (its
   * next try moved since the attempt began) keeps the replay: it is sent again, not marked done by the older attempt.
   */
  async record(subscription: string, attempts: readonly Attempt[], now: number): Promise<void> {
    if (!attempts.length) return;
    await this.sql(
      `update ${this.t}.event_deliveries d
          set status = case when r.ok then 'delivered' when r.next_try is null then 'dead' else 'pending' end,
              attempts = d.attempts + 1, next_try = coalesce(r.next_try, d.next_try), last_error = r.error, last_status = r.code,
              done_at = case when r.ok or r.next_try is null then $7::bigint else null end
         from unnest($2::bigint[], $3::boolean[], $4::bigint[], $5::text[], $6::int[], $8::bigint[]) as r(event, ok, next_try, error, code, begun)
        where d.subscription = $1 and d.event = r.event and d.status = 'pending' and d.next_try = r.begun`,
      [subscription, attempts.map((a) => a.event), attempts.map((a) => a.ok), attempts.map((a) => a.nextTry), attempts.map((a) => a.error), attempts.map((a) => a.status), now, attempts.map((a) => a.begun)],
    );
  }

  /**
   * Puts a subscription's events from `from` (an event id, or a time in ms) back in its queue, up to `limit`: those it
   * matches, delivered or not. Answers how many, and the id to go on from when more are left.
   */
  async replay(subscription: string, from: { id?: number; time?: number }, limit: number, now: number): Promise<{ replayed: number; next: number | null }> {
    const rows = await this.sql<{ id: string }>(
      `with chosen as (select e.id, e.person from ${this.t}.privacy_events e join ${this.t}.event_subscriptions s on s.id = $1
          where e.fanned and e.id >= $2 and e."time" >= $3 and ${MATCHES} order by e.id limit $4 + 1),
       taken as (select * from chosen order by id limit $4),
       made as (insert into ${this.t}.event_deliveries (subscription, event, person, next_try) select $1, id, person, $5 from taken
         on conflict (subscription, event) do update set status = 'pending', attempts = 0, next_try = $5, last_error = null, last_status = null, done_at = null
         returning 1)
       select (select count(*) from made)::text as id union all select id::text from chosen where id > (select coalesce(max(id), 0) from taken)`,
      [subscription, from.id ?? 0, from.time ?? 0, limit, now],
    );
    return { replayed: Number(rows[0]?.id ?? 0), next: rows[1] ? Number(rows[1].id) : null };
  }

  /** A page of deliveries, newest event first, of one subscription or all, optionally of one status. */
  async deliveries(filter: { subscription?: string | undefined; status?: string | undefined }, offset: number, limit: number): Promise<{ total: number; rows: DeliveryRow[] }> {
    const params: unknown[] = [];
    const conditions: string[] = [];
    if (filter.subscription) conditions.push(`d.subscription = $${params.push(filter.subscription)}`);
    if (filter.status) conditions.push(`d.status = $${params.push(filter.status)}`);
    const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
    const n = params.length;
    // Counted up to COUNT_CAP: a list's cost is bounded by its page, not by the tenant's history.
    const [count] = await this.sql<{ n: number }>(`select count(*)::int as n from (select 1 from ${this.t}.event_deliveries d ${where} limit ${COUNT_CAP}) c`, params);
    const rows = await this.sql(
      `select d.subscription, d.event, e.uuid, e.type, e."time", e.person, d.status, d.attempts, d.next_try, d.last_error, d.last_status, d.done_at
         from ${this.t}.event_deliveries d join ${this.t}.privacy_events e on e.id = d.event ${where}
        order by d.event desc, d.subscription offset $${n + 1} limit $${n + 2}`,
      [...params, offset, limit],
    );
    return {
      total: Number(count?.n ?? 0),
      rows: rows.map((r) => ({
        subscription: r.subscription as string,
        eventId: Number(r.event),
        uuid: r.uuid as string,
        type: r.type as string,
        time: Number(r.time),
        person: (r.person as string | null) ?? null,
        status: r.status as DeliveryRow['status'],
        attempts: Number(r.attempts),
        nextTry: r.status === 'pending' ? Number(r.next_try) : null,
        lastError: (r.last_error as string | null) ?? null,
        lastStatus: r.last_status == null ? null : Number(r.last_status),
        doneAt: r.done_at == null ? null : Number(r.done_at),
      })),
    };
  }

  /** An event by its uuid. */
  async byUuid(uuid: string): Promise<PrivacyEventRow | null> {
    const [r] = await this.sql(`select id, uuid, type, "time", person, data from ${this.t}.privacy_events where uuid = $1`, [uuid]);
    return r ? eventOf(r) : null;
  }

  /** What waits to leave: events not yet fanned out and deliveries pending, with the oldest one's time (ms). */
  async backlog(): Promise<{ events: number; deliveries: number; dead: number; oldest: number | null }> {
    const [r] = await this.sql<{ events: number; deliveries: number; dead: number; oldest: string | null }>(
      `select (select count(*) from ${this.t}.privacy_events where not fanned)::int as events,
              (select count(*) from ${this.t}.event_deliveries where status = 'pending')::int as deliveries,
              (select count(*) from ${this.t}.event_deliveries where status = 'dead')::int as dead,
              least((select min("time") from ${this.t}.privacy_events where not fanned),
                    (select min(e."time") from ${this.t}.event_deliveries d join ${this.t}.privacy_events e on e.id = d.event where d.status = 'pending')) as oldest`,
    );
    return { events: Number(r?.events ?? 0), deliveries: Number(r?.deliveries ?? 0), dead: Number(r?.dead ?? 0), oldest: r?.oldest == null ? null : Number(r.oldest) };
  }

  /**
   * Removes up to `limit` events older than `before` (ms) with nothing pending, their deliveries with them. Answers how
   * many went.
   */
  async sweep(before: number, limit: number): Promise<number> {
    const rows = await this.sql(
      `delete from ${this.t}.privacy_events where id in (select e.id from ${this.t}.privacy_events e where e."time" < $1 and e.fanned
         and not exists (select from ${this.t}.event_deliveries d where d.event = e.id and d.status = 'pending') order by e.id limit $2) returning 1`,
      [before, limit],
    );
    return rows.length;
  }
}
