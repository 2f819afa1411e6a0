// Tenant keys derive from a random salt stored with the tenant and deleted with it: even if a tenant id came back,
// its keys would not. Tenants made before this migration have none and keep their keys as they were derived.
import { Migration } from '@mikro-orm/migrations';

export class Global0007TenantKeySalt extends Migration {
  override name = 'Global0007TenantKeySalt';

  override up(): void {
    this.addSql(`alter table tenants add column key_salt bytea null`);
  }
}
