// Who manages a tenant: an owner mark (the operator puts its Tenant resource's uid here) so that a tool acts only
// on tenants it made, never on one it is told about. Null for every tenant made before, for tenants made by hand,
// and always for the main tenant.
import { Migration } from '@mikro-orm/migrations';

export class Global0008TenantOwnership extends Migration {
  override name = 'Global0008TenantOwnership';

  override up(): void {
    this.addSql(`alter table tenants add column managedby text null`);
  }
}
