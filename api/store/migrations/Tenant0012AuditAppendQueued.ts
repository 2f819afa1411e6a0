// A queued event is appended from the queue itself: audit_append takes the queued events' uuids with their links
// and digests, and moves each row from audit_queue into audit_events in one statement, so its data (a write's
// sealed before-and-after, kilobytes) is not sent back to the database it came from. Events not queued (reads,
// failed calls) still come with their data. Links and digests are in chain order: the queued events first, in the
// order given, then the others.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0012AuditAppendQueued extends Migration {
  override name = 'Tenant0012AuditAppendQueued';

  override up(): void {
    this.addSql(`drop function audit_append(bigint, bytea, bytea, uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], bytea[], bytea[], uuid[])`);
    this.addSql(`create function audit_append(p_first bigint, p_prev bytea, p_prev_digest bytea,
        p_uuid uuid[], p_when bigint[], p_title text[], p_status text[], p_msg text[], p_actor text[],
        p_record uuid[], p_mode text[], p_app text[], p_details bytea[], p_link bytea[], p_digest bytea[],
        p_dequeue uuid[] default '{}')
      returns bigint language plpgsql security definer set search_path from current as $fn$
      declare
        h_seq bigint;
        h_hash bytea;
        h_digest bytea;
        q int := coalesce(array_length(p_dequeue, 1), 0);
        n int := coalesce(array_length(p_uuid, 1), 0);
        moved int;
      begin
        select h.seq, h.hash, h.digest into h_seq, h_hash, h_digest from audit_head h where h.id = 1 for update;
        if h_seq <> p_first - 1 or h_hash <> p_prev or h_digest <> p_prev_digest then
          raise exception 'audit head is at %, not where the batch was chained from', h_seq;
        end if;
        if q + n = 0 then return h_seq; end if;
        if coalesce(array_length(p_link, 1), 0) <> q + n or coalesce(array_length(p_digest, 1), 0) <> q + n then
          raise exception 'one link and one digest per event';
        end if;
        if q > 0 then
          -- Each queued event must still be queued: one another chainer took is not chained twice.
          with taken as (delete from audit_queue where uuid = any(p_dequeue) returning *)
          insert into audit_events (seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash, digest)
          select p_first + d.o - 1, t.uuid, t."when", t.title, t.status, t.msg, t.actor, t.record, t.mode, t.app, t.details, p_link[d.o], p_digest[d.o]
          from unnest(p_dequeue) with ordinality as d(u, o) join taken t on t.uuid = d.u;
          get diagnostics moved = row_count;
          if moved <> q then raise exception 'queued events were chained already'; end if;
        end if;
        if n > 0 then
          insert into audit_events (seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash, digest)
          select p_first + q + t.o - 1, t.u, t.w, t.ti, t.st, t.m, t.a, t.r, t.mo, t.ap, t.d, p_link[q + t.o], p_digest[q + t.o]
          from unnest(p_uuid, p_when, p_title, p_status, p_msg, p_actor, p_record, p_mode, p_app, p_details)
            with ordinality as t(u, w, ti, st, m, a, r, mo, ap, d, o);
        end if;
        update audit_head set seq = p_first + q + n - 1, hash = p_link[q + n], digest = p_digest[q + n] where id = 1;
        return p_first + q + n - 1;
      end
      $fn$`);
    this.addSql(`revoke execute on function audit_append(bigint, bytea, bytea, uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], bytea[], bytea[], uuid[]) from public`);
  }
}
