// Signed checkpoints kept in the tenant's schema too (docs/operations.md, "Audit sinks"): the audit sinks send each one
// after the event it covers, so a SIEM's copy can be verified alone; and an RFC 3161 timestamp token, when a
// timestamp authority is configured, is stored beside the checkpoint it covers (null until one is had). Written by
// the vault's own user only: the tenant's role may read them (Database.grantTenantRole).
import { Migration } from '@mikro-orm/migrations';

export class Tenant0017AuditCheckpointLines extends Migration {
  override name = 'Tenant0017AuditCheckpointLines';

  override up(): void {
    this.addSql(`create table audit_checkpoints (
      seq bigint primary key,
      line jsonb not null,
      timestamp bytea null,
      created bigint not null)`);
    this.addSql(`create index audit_checkpoints_untimed on audit_checkpoints (seq) where timestamp is null`);
  }
}
