// How far each audit sink has sent each tenant's trail (docs/operations.md, "Audit sinks"): the last event and the
// last checkpoint a sink acknowledged. A sink that was down catches up from here, with no gap; a resend covers at
// most the batch whose acknowledgement was lost (receivers de-duplicate by tenant and sequence).
import { Migration } from '@mikro-orm/migrations';

export class Global0011AuditSinkCursors extends Migration {
  override name = 'Global0011AuditSinkCursors';

  override up(): void {
    this.addSql(`create table audit_sink_cursors (
      sink text not null,
      tenant_id integer not null references tenants (id) on delete cascade,
      seq bigint not null default 0,
      checkpoint_seq bigint not null default 0,
      updated bigint not null,
      primary key (sink, tenant_id))`);
  }
}
