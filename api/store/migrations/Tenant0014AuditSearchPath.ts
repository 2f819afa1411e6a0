// The SECURITY DEFINER audit functions ran with `search_path from current`, which left pg_temp implicitly FIRST:
// a tenant's role could create temporary tables named audit_head, audit_events or audit_queue and have the
// functions, running as the vault's own user, read and write those instead (a queued event went into a temporary
// table and vanished with the session). Each function is made again with every table qualified by its schema and
// `search_path = <schema>, pg_temp` (pg_temp last, as PostgreSQL's manual asks of SECURITY DEFINER functions).
// And no role gets TEMP on the database through PUBLIC: tenant roles create no temporary tables at all (the vault's
// own user owns the database, or is a superuser, and keeps it). CREATE OR REPLACE keeps owners and grants.
import { Migration } from '@mikro-orm/migrations';

/** audit_lock_head(): the head, locked for the caller (which lacks the UPDATE right FOR UPDATE needs). */
export const LOCK_HEAD = `create or replace function %1$I.audit_lock_head() returns table (seq bigint, hash bytea, digest bytea)
  language sql security definer set search_path = %1$I, pg_temp as $fn$
    select h.seq, h.hash, h.digest from %1$I.audit_head h where h.id = 1 for update
  $fn$`;

/** audit_append() as Tenant0012AuditAppendQueued made it, every table qualified. */
export const APPEND = `create or replace function %1$I.audit_append(p_first bigint, p_prev bytea, p_prev_digest bytea,
    p_uuid uuid[], p_when bigint[], p_title text[], p_status text[], p_msg text[], p_actor text[],
    p_record uuid[], p_mode text[], p_app text[], p_details bytea[], p_link bytea[], p_digest bytea[],
    p_dequeue uuid[] default '{}')
  returns bigint language plpgsql security definer set search_path = %1$I, pg_temp as $fn$
  declare
    h_seq bigint;
    h_hash bytea;
    h_digest bytea;
    q int := coalesce(array_length(p_dequeue, 1), 0);
    n int := coalesce(array_length(p_uuid, 1), 0);
    moved int;
  begin
    select h.seq, h.hash, h.digest into h_seq, h_hash, h_digest from %1$I.audit_head h where h.id = 1 for update;
    if h_seq <> p_first - 1 or h_hash <> p_prev or h_digest <> p_prev_digest then
      raise exception 'audit head is at %%, not where the batch was chained from', h_seq;
    end if;
    if q + n = 0 then return h_seq; end if;
    if coalesce(array_length(p_link, 1), 0) <> q + n or coalesce(array_length(p_digest, 1), 0) <> q + n then
      raise exception 'one link and one digest per event';
    end if;
    if q > 0 then
      with taken as (delete from %1$I.audit_queue where uuid = any(p_dequeue) returning *)
      insert into %1$I.audit_events (seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash, digest)
      select p_first + d.o - 1, t.uuid, t."when", t.title, t.status, t.msg, t.actor, t.record, t.mode, t.app, t.details, p_link[d.o], p_digest[d.o]
      from unnest(p_dequeue) with ordinality as d(u, o) join taken t on t.uuid = d.u;
      get diagnostics moved = row_count;
      if moved <> q then raise exception 'queued events were chained already'; end if;
    end if;
    if n > 0 then
      insert into %1$I.audit_events (seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash, digest)
      select p_first + q + t.o - 1, t.u, t.w, t.ti, t.st, t.m, t.a, t.r, t.mo, t.ap, t.d, p_link[q + t.o], p_digest[q + t.o]
      from unnest(p_uuid, p_when, p_title, p_status, p_msg, p_actor, p_record, p_mode, p_app, p_details)
        with ordinality as t(u, w, ti, st, m, a, r, mo, ap, d, o);
    end if;
    update %1$I.audit_head set seq = p_first + q + n - 1, hash = p_link[q + n], digest = p_digest[q + n] where id = 1;
    return p_first + q + n - 1;
  end
  $fn$`;

/** audit_enqueue() as Tenant0013SealedStorage made it, the table qualified. */
const ENQUEUE = `create or replace function %1$I.audit_enqueue(p_uuid uuid[], p_when bigint[], p_title text[], p_status text[], p_msg text[],
    p_actor text[], p_record uuid[], p_mode text[], p_app text[], p_details bytea[])
  returns void language plpgsql security definer set search_path = %1$I, pg_temp as $fn$
  begin
    insert into %1$I.audit_queue (uuid, "when", title, status, msg, actor, record, mode, app, details)
    select * from unnest(p_uuid, p_when, p_title, p_status, p_msg, p_actor, p_record, p_mode, p_app, p_details);
  end
  $fn$`;

/** A statement that runs `template` through format() with the migrated schema as %1$I. */
export function inSchema(template: string): string {
  return `do $do$ begin execute format($tpl$${template}$tpl$, current_schema()); end $do$`;
}

export class Tenant0014AuditSearchPath extends Migration {
  override name = 'Tenant0014AuditSearchPath';

  override up(): void {
    for (const fn of [LOCK_HEAD, APPEND, ENQUEUE]) this.addSql(inSchema(fn));
    this.addSql(`do $do$ begin execute format('revoke temporary on database %I from public', current_database()); end $do$`);
  }
}
