// The keyed audit chain (ARCHITECTURE, "Audit"): links are HMACs the tokenizer computes under the tenant's audit
// key, so the database only stores them. The api takes the head's lock (audit_lock_head), asks the tokenizer for
// the links of its batch, and appends (audit_append), all in the transaction of the change the events describe.
// Both functions are SECURITY DEFINER: the tenant's database role may call them, and may only read the audit
// tables (Database.grantTenantRole revokes the rest).
// Events stored before this migration carry unkeyed sha256 links that no key can vouch for: the database cannot
// re-chain them (it never holds the key), so such a trail verifies as broken from its first event. Pre-release
// data: re-create the vault's database.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0009KeyedAudit extends Migration {
  override name = 'Tenant0009KeyedAudit';

  override up(): void {
    this.addSql(`drop function audit_append(uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], text[])`);
    // FOR UPDATE needs the UPDATE right, which the tenant's role does not have: the definer takes the lock for it.
    this.addSql(`create function audit_lock_head() returns table (seq bigint, hash bytea)
      language sql security definer set search_path from current as $fn$
        select h.seq, h.hash from audit_head h where h.id = 1 for update
      $fn$`);
    // The head must still be where the links were chained from (the caller holds its lock, so it is): a batch
    // chained from another head is refused rather than stored with links that do not follow.
    this.addSql(`create function audit_append(p_first bigint, p_prev bytea,
        p_uuid uuid[], p_when bigint[], p_title text[], p_status text[], p_msg text[], p_actor text[],
        p_record uuid[], p_mode text[], p_app text[], p_details bytea[], p_link bytea[])
      returns bigint language plpgsql security definer set search_path from current as $fn$
      declare
        h_seq bigint;
        h_hash bytea;
        n int := coalesce(array_length(p_uuid, 1), 0);
      begin
        select h.seq, h.hash into h_seq, h_hash from audit_head h where h.id = 1 for update;
        if h_seq <> p_first - 1 or h_hash <> p_prev then
          raise exception 'audit head is at %, not where the batch was chained from', h_seq;
        end if;
        if n = 0 then return h_seq; end if;
        if coalesce(array_length(p_link, 1), 0) <> n then raise exception 'one link per event'; end if;
        insert into audit_events (seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash)
        select p_first + t.o - 1, t.u, t.w, t.ti, t.st, t.m, t.a, t.r, t.mo, t.ap, t.d, t.l
        from unnest(p_uuid, p_when, p_title, p_status, p_msg, p_actor, p_record, p_mode, p_app, p_details, p_link)
          with ordinality as t(u, w, ti, st, m, a, r, mo, ap, d, l, o);
        update audit_head set seq = p_first + n - 1, hash = p_link[n] where id = 1;
        return p_first + n - 1;
      end
      $fn$`);
    this.addSql(`revoke execute on function audit_lock_head() from public`);
    this.addSql(`revoke execute on function audit_append(bigint, bytea, uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], bytea[]) from public`);
  }
}
