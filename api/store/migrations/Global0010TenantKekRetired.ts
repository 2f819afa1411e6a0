// Every HSM object a tenant's key was ever wrapped by, besides its current one (a move to another KEK leaves the
// old object behind until it is destroyed): what TenantRevokeKek and TenantDelete must destroy too, or a backup of
// the tenant's row from before the move reopens its data. `destroyed` is set once the object is gone from the HSM.
import { Migration } from '@mikro-orm/migrations';

export class Global0010TenantKekRetired extends Migration {
  override name = 'Global0010TenantKekRetired';

  override up(): void {
    this.addSql(`create table tenant_kek_retired (
      tenant_id integer not null references tenants (id) on delete cascade,
      label text not null,
      wrapped bytea not null,
      retired bigint not null,
      destroyed bigint null,
      primary key (tenant_id, label, wrapped))`);
  }
}
