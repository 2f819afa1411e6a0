// The keyed audit chain (ARCHITECTURE, "Audit"): links are HMACs the tokenizer computes under the tenant's audit
// key, so the database only stores them. The api takes the head's lock (audit_lock_head), asks the tokenizer for
// the links of its batch, and appends (audit_append), all in the transaction of the change the events describe.
// Each event also stores its public digest (sha256 chain, proto/audit-checkpoint.ts): a checkpoint signs it, so an
// auditor without the key can check the events up to a checkpoint. Both functions are SECURITY DEFINER: the tenant's database role may call them, and may only read the audit
// tables (Database.grantTenantRole revokes the rest).
// Events stored before this migration carry unkeyed sha256 links that no key can vouch for, and the database cannot
// re-chain them (it never holds the key): the legacy upgrade (api/vault/jobs/legacy.ts) verifies and re-chains them.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0009KeyedAudit extends Migration {
  override name = 'Tenant0009KeyedAudit';

  override up(): void {
    this.addSql(`drop function audit_append(uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], text[])`);
    // Null for events stored before this migration.
    this.addSql(`alter table audit_events add column digest bytea null`);
    this.addSql(`alter table audit_head add column digest bytea not null default '\\x'`);
    // FOR UPDATE needs the UPDATE right, which the tenant's role does not have: the definer takes the lock for it.
    this.addSql(`create function audit_lock_head() returns table (seq bigint, hash bytea, digest bytea)
      language sql security definer set search_path from current as $fn$
        select h.seq, h.hash, h.digest from audit_head h where h.id = 1 for update
      $fn$`);
    // The head must still be where the links were chained from (the caller holds its lock, so it is): a batch
    // chained from another head is refused rather than stored with links that do not follow.
    this.addSql(`create function audit_append(p_first bigint, p_prev bytea, p_prev_digest bytea,
        p_uuid uuid[], p_when bigint[], p_title text[], p_status text[], p_msg text[], p_actor text[],
        p_record uuid[], p_mode text[], p_app text[], p_details bytea[], p_link bytea[], p_digest bytea[])
      returns bigint language plpgsql security definer set search_path from current as $fn$
      declare
        h_seq bigint;
        h_hash bytea;
        h_digest bytea;
        n int := coalesce(array_length(p_uuid, 1), 0);
      begin
        select h.seq, h.hash, h.digest into h_seq, h_hash, h_digest from audit_head h where h.id = 1 for update;
        if h_seq <> p_first - 1 or h_hash <> p_prev or h_digest <> p_prev_digest then
          raise exception 'audit head is at %, not where the batch was chained from', h_seq;
        end if;
        if n = 0 then return h_seq; end if;
        if coalesce(array_length(p_link, 1), 0) <> n or coalesce(array_length(p_digest, 1), 0) <> n then
          raise exception 'one link and one digest per event';
        end if;
        insert into audit_events (seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash, digest)
        select p_first + t.o - 1, t.u, t.w, t.ti, t.st, t.m, t.a, t.r, t.mo, t.ap, t.d, t.l, t.g
        from unnest(p_uuid, p_when, p_title, p_status, p_msg, p_actor, p_record, p_mode, p_app, p_details, p_link, p_digest)
          with ordinality as t(u, w, ti, st, m, a, r, mo, ap, d, l, g, o);
        update audit_head set seq = p_first + n - 1, hash = p_link[n], digest = p_digest[n] where id = 1;
        return p_first + n - 1;
      end
      $fn$`);
    this.addSql(`revoke execute on function audit_lock_head() from public`);
    this.addSql(`revoke execute on function audit_append(bigint, bytea, bytea, uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], bytea[], bytea[]) from public`);
  }
}
