// Where every replica sees how far a tenant's audit trail is checkpointed: the last head signed and written outside
// the database (its sequence number, link and time). It only paces the checkpoints (a new one once the head moves
// away from it: on the next tick, or after STRONGROOM_AUDIT_CHECKPOINT_EVENTS events); it proves nothing. A head
// that differs from it in any way is checkpointed, never skipped, and the tenant's database role may only read it
// (Database.grantTenantRole): the api moves it as the vault's own user.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0011AuditCheckpointed extends Migration {
  override name = 'Tenant0011AuditCheckpointed';

  override up(): void {
    this.addSql(`create table audit_checkpointed (
      id int primary key default 1 check (id = 1),
      seq bigint not null default 0,
      link bytea not null default '\\x',
      "time" bigint not null default 0)`);
    this.addSql(`insert into audit_checkpointed (id) values (1)`);
  }
}
