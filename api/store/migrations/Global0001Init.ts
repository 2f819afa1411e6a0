// The global schema: tenants, credentials (token hashes only), unlock UUIDs, settings.
import { Migration } from '@mikro-orm/migrations';

export class Global0001Init extends Migration {
  override name = 'Global0001Init';

  override up(): void {
    this.addSql(`create table tenants (
      id serial primary key,
      name text not null unique,
      org text not null,
      email text null,
      created bigint not null)`);
    this.addSql(`create table credentials (
      id uuid primary key,
      hash text not null unique,
      kind text not null check (kind in ('root', 'tenant-admin', 'role', 'login')),
      tenant_id int not null references tenants (id) on delete cascade,
      role_id int null,
      user_token uuid null,
      expires_at bigint null,
      created bigint not null)`);
    this.addSql(`create index credentials_tenant on credentials (tenant_id)`);
    this.addSql(`create table unlocks (
      uuid uuid primary key,
      credential_id uuid not null references credentials (id) on delete cascade,
      tenant_id int not null references tenants (id) on delete cascade,
      expires_at bigint not null)`);
    this.addSql(`create table settings (key text primary key, value text not null)`);
  }
}
