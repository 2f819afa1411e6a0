// Queued audit events are authenticated (docs/operations.md, "The audit trail"): whoever could write the database could queue
// events of their own making, and the chainer linked them as the vault's. Each queued event now carries the MAC the
// tokenizer made as the api sealed it (its `audit-queue` key, over uuid, time, tenant and the event's canonical text),
// audit_enqueue refuses a row without one, and the tokenizer checks it before linking. An event it refuses is never
// linked: the api moves it out of the queue into audit_refused (as the vault's own user: the tenant's role may only
// read that table, Database.grantTenantRole), where it stays as evidence.
import { Migration } from '@mikro-orm/migrations';
import { inSchema } from './Tenant0014AuditSearchPath.js';

const ENQUEUE = `create function %1$I.audit_enqueue(p_uuid uuid[], p_when bigint[], p_title text[], p_status text[], p_msg text[],
    p_actor text[], p_record uuid[], p_mode text[], p_app text[], p_details bytea[], p_mac bytea[])
  returns void language plpgsql security definer set search_path = %1$I, pg_temp as $fn$
  begin
    if coalesce(array_length(p_mac, 1), 0) <> coalesce(array_length(p_uuid, 1), 0)
        or exists (select from unnest(p_mac) m where m is null or length(m) <> 32) then
      raise exception 'every queued audit event needs the tokenizer''s MAC';
    end if;
    insert into %1$I.audit_queue (uuid, "when", title, status, msg, actor, record, mode, app, details, mac)
    select * from unnest(p_uuid, p_when, p_title, p_status, p_msg, p_actor, p_record, p_mode, p_app, p_details, p_mac);
  end
  $fn$`;

export class Tenant0015AuditQueueMac extends Migration {
  override name = 'Tenant0015AuditQueueMac';

  override up(): void {
    this.addSql(`alter table audit_queue add column mac bytea null`);
    this.addSql(`drop function audit_enqueue(uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[])`);
    this.addSql(inSchema(ENQUEUE));
    this.addSql(`revoke execute on function audit_enqueue(uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], bytea[]) from public`);
    this.addSql(`create table audit_refused (
      uuid uuid not null,
      "when" bigint not null,
      title text not null,
      status text not null,
      msg text null,
      actor text not null,
      record uuid null,
      mode text null,
      app text null,
      details bytea null,
      mac bytea null,
      refused_at bigint not null)`);
  }
}
