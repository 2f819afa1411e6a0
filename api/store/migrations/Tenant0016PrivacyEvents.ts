// Privacy events that leave the vault (docs/events.md): an outbox written in the same statement as a write's audit
// event (events_publish, beside audit_enqueue), the subscriptions that receive them, one delivery row per event and
// subscription (made by the elected dispatcher as it fans the outbox out), and, for each erasure, the recipients that
// must confirm it. The tenant's role publishes only through events_publish: it may neither change nor remove an
// event once written (Database.grantTenantRole).
import { Migration } from '@mikro-orm/migrations';
import { inSchema } from './Tenant0014AuditSearchPath.js';

/**
 * events_publish(events, due): the events of a write (a JSON array of {uuid, type, time, person, data}) and, for each
 * `person.erased`, a confirmation owed by every subscription (paused ones too: they deliver once resumed) that
 * receives erasures and confirms them. A deleted subscription is kept as evidence of what it owed and confirmed.
 */
export const PUBLISH = `create or replace function %1$I.events_publish(p_events jsonb, p_due bigint)
  returns void language plpgsql security definer set search_path = %1$I, pg_temp as $fn$
  begin
    insert into %1$I.privacy_events (uuid, type, "time", person, data)
    select x.uuid, x.type, x."time", x.person, x.data
      from jsonb_to_recordset(p_events) as x(uuid uuid, type text, "time" bigint, person uuid, data jsonb);
    insert into %1$I.erasure_confirmations (event, subscription, person, request, erased_at, due)
    select x.uuid, s.id, x.person, (x.data->>'request')::uuid, x."time" / 1000, p_due
      from jsonb_to_recordset(p_events) as x(uuid uuid, type text, "time" bigint, person uuid, data jsonb)
      join %1$I.event_subscriptions s on s.deleted is null and s.confirms and 'person.erased' = any(s.types)
     where x.type = 'person.erased' and x.person is not null;
  end
  $fn$`;

export class Tenant0016PrivacyEvents extends Migration {
  override name = 'Tenant0016PrivacyEvents';

  override up(): void {
    this.addSql(`create table privacy_events (
      id bigserial primary key,
      uuid uuid not null unique,
      type text not null,
      "time" bigint not null,
      person uuid null,
      data jsonb not null,
      fanned boolean not null default false)`);
    this.addSql(`create index privacy_events_unfanned on privacy_events (id) where not fanned`);
    this.addSql(`create index privacy_events_time on privacy_events ("time")`);
    this.addSql(`create table event_subscriptions (
      id uuid primary key,
      kind text not null check (kind in ('webhook', 'nats')),
      target text not null,
      types text[] not null,
      fields text[] null,
      briefs text[] null,
      description text null,
      confirms boolean not null default true,
      confirm_role text null,
      secret bytea null,
      previous_secret bytea null,
      previous_until bigint null,
      active boolean not null default true,
      deleted bigint null,
      created bigint not null,
      updated bigint not null)`);
    this.addSql(`create table event_deliveries (
      subscription uuid not null references event_subscriptions (id) on delete cascade,
      event bigint not null references privacy_events (id) on delete cascade,
      person uuid null,
      status text not null default 'pending' check (status in ('pending', 'delivered', 'dead')),
      attempts int not null default 0,
      next_try bigint not null,
      last_error text null,
      last_status int null,
      done_at bigint null,
      primary key (subscription, event))`);
    this.addSql(`create index event_deliveries_due on event_deliveries (subscription, next_try) where status = 'pending'`);
    this.addSql(`create index event_deliveries_person on event_deliveries (subscription, person, event) where status = 'pending'`);
    this.addSql(`create index event_deliveries_event on event_deliveries (event)`);
    this.addSql(`create table erasure_confirmations (
      event uuid not null,
      subscription uuid not null references event_subscriptions (id) on delete cascade,
      person uuid not null,
      request uuid null,
      erased_at bigint not null,
      due bigint not null,
      confirmed_at bigint null,
      confirmed_via text null,
      confirmed_by text null,
      overdue_noted boolean not null default false,
      primary key (event, subscription))`);
    this.addSql(`create index erasure_confirmations_person on erasure_confirmations (person)`);
    this.addSql(`create index erasure_confirmations_request on erasure_confirmations (request) where request is not null`);
    this.addSql(`create index erasure_confirmations_pending on erasure_confirmations (due) where confirmed_at is null`);
    this.addSql(inSchema(PUBLISH));
    this.addSql(`revoke execute on function events_publish(jsonb, bigint) from public`);
  }
}
