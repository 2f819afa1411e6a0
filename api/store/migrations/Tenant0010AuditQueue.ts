// Writes no longer hold the audit head's lock (ARCHITECTURE, "Audit"): a write's event is queued in the write's own
// transaction (audit_enqueue), so it commits or rolls back with the change it describes, and a chainer links queued
// events in batches (audit_append's new `p_dequeue`: the queued rows it chained leave the queue in the same
// statement that appends them). Before, every write of a tenant locked the head from its tokenizer call until its
// commit, so a tenant's writes ran one at a time. The tenant's role may only call the functions: it can read the
// queue but neither insert into it directly nor update or delete what is queued.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0010AuditQueue extends Migration {
  override name = 'Tenant0010AuditQueue';

  override up(): void {
    this.addSql(`create table audit_queue (
      id bigserial primary key,
      uuid uuid not null unique,
      "when" bigint not null,
      title text not null,
      status text not null,
      msg text null,
      actor text not null,
      record uuid null,
      mode text null,
      app text null,
      details bytea null
    )`);
    this.addSql(`create function audit_enqueue(p_uuid uuid[], p_when bigint[], p_title text[], p_status text[], p_msg text[],
        p_actor text[], p_record uuid[], p_mode text[], p_app text[], p_details bytea[])
      returns void language sql security definer set search_path from current as $fn$
        insert into audit_queue (uuid, "when", title, status, msg, actor, record, mode, app, details)
        select * from unnest(p_uuid, p_when, p_title, p_status, p_msg, p_actor, p_record, p_mode, p_app, p_details)
      $fn$`);
    this.addSql(`drop function audit_append(bigint, bytea, bytea, uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], bytea[], bytea[])`);
    // As Tenant0009KeyedAudit's, plus the queued events this batch chains: each must still be queued (so no queued
    // event is chained twice, even by two replicas) and is removed from the queue as it is appended.
    this.addSql(`create function audit_append(p_first bigint, p_prev bytea, p_prev_digest bytea,
        p_uuid uuid[], p_when bigint[], p_title text[], p_status text[], p_msg text[], p_actor text[],
        p_record uuid[], p_mode text[], p_app text[], p_details bytea[], p_link bytea[], p_digest bytea[],
        p_dequeue uuid[] default '{}')
      returns bigint language plpgsql security definer set search_path from current as $fn$
      declare
        h_seq bigint;
        h_hash bytea;
        h_digest bytea;
        n int := coalesce(array_length(p_uuid, 1), 0);
        q int := coalesce(array_length(p_dequeue, 1), 0);
        gone int;
      begin
        select h.seq, h.hash, h.digest into h_seq, h_hash, h_digest from audit_head h where h.id = 1 for update;
        if h_seq <> p_first - 1 or h_hash <> p_prev or h_digest <> p_prev_digest then
          raise exception 'audit head is at %, not where the batch was chained from', h_seq;
        end if;
        if n = 0 then return h_seq; end if;
        if coalesce(array_length(p_link, 1), 0) <> n or coalesce(array_length(p_digest, 1), 0) <> n then
          raise exception 'one link and one digest per event';
        end if;
        if q > 0 then
          if not (p_dequeue <@ p_uuid) then raise exception 'a dequeued event is not in the batch'; end if;
          delete from audit_queue where uuid = any(p_dequeue);
          get diagnostics gone = row_count;
          if gone <> q then raise exception 'queued events were chained already'; end if;
        end if;
        insert into audit_events (seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash, digest)
        select p_first + t.o - 1, t.u, t.w, t.ti, t.st, t.m, t.a, t.r, t.mo, t.ap, t.d, t.l, t.g
        from unnest(p_uuid, p_when, p_title, p_status, p_msg, p_actor, p_record, p_mode, p_app, p_details, p_link, p_digest)
          with ordinality as t(u, w, ti, st, m, a, r, mo, ap, d, l, g, o);
        update audit_head set seq = p_first + n - 1, hash = p_link[n], digest = p_digest[n] where id = 1;
        return p_first + n - 1;
      end
      $fn$`);
    this.addSql(`revoke execute on function audit_enqueue(uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[]) from public`);
    this.addSql(`revoke execute on function audit_append(bigint, bytea, bytea, uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], bytea[], bytea[], uuid[]) from public`);
  }
}
