// audit_append(): appends a batch of audit events to the tenant's hash chain in one round trip.
// Under the head row lock: hash_n = sha256(hash_{n-1} ‖ int8(seq_n) ‖ utf8(canonical_n)). The api sends the
// canonical text of each event's fields; verification recomputes it from the stored row, so a forged field
// or a forged canonical text both break the chain.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0002AuditAppend extends Migration {
  override name = 'Tenant0002AuditAppend';

  override up(): void {
    // SET search_path FROM CURRENT pins the function to the schema it was created in (the migrator's search_path).
    this.addSql(`create function audit_append(
        p_uuid uuid[], p_when bigint[], p_title text[], p_status text[], p_msg text[], p_actor text[],
        p_record uuid[], p_mode text[], p_app text[], p_details bytea[], p_canon text[])
      returns bigint language plpgsql set search_path from current as $fn$
      declare
        h_seq bigint;
        h_hash bytea;
      begin
        select seq, hash into h_seq, h_hash from audit_head where id = 1 for update;
        for i in 1 .. coalesce(array_length(p_uuid, 1), 0) loop
          h_seq := h_seq + 1;
          h_hash := sha256(h_hash || int8send(h_seq) || convert_to(p_canon[i], 'UTF8'));
          insert into audit_events (seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash)
          values (h_seq, p_uuid[i], p_when[i], p_title[i], p_status[i], p_msg[i], p_actor[i], p_record[i], p_mode[i],
                  p_app[i], p_details[i], h_hash);
        end loop;
        update audit_head set seq = h_seq, hash = h_hash where id = 1;
        return h_seq;
      end
      $fn$`);
  }
}
