// Login that cannot be guessed or burnt, limits that hold across replicas, and shared records found without a
// tenant name:
// - a captcha is now a proof-of-work challenge, kept whole until its one answer;
// - every UserPrelogin gets its own code (`login_codes.id`, handed back as `loginid`), so a guess bound to one
//   attempt never spends another's; wrong codes are remembered per person in `login_failures`, whatever prelogin
//   they were for, and a person with too many in the window is locked out;
// - `rate_limits` is rate-limiter-flexible's PostgreSQL table (per client address, per tenant);
// - `shared_record_tenants` maps a shared record's uuid to its tenant, so its public link needs no tenant name.
import { Migration } from '@mikro-orm/migrations';
import { GLOBAL_SCHEMA, tenantSchema } from '../schemas.js';

export class Global0006Bounds extends Migration {
  override name = 'Global0006Bounds';

  override async up(): Promise<void> {
    this.addSql(`drop table captchas`);
    this.addSql(`create table captchas (
      id uuid primary key,
      challenge text not null,
      expires_at bigint not null)`);
    this.addSql(`drop table login_codes`);
    this.addSql(`create table login_codes (
      id uuid primary key,
      tenant_id int not null references tenants (id) on delete cascade,
      user_token uuid not null,
      code_hash text not null,
      attempts int not null default 0,
      expires_at bigint not null)`);
    this.addSql(`create index login_codes_user on login_codes (tenant_id, user_token)`);
    this.addSql(`create table login_failures (
      tenant_id int not null references tenants (id) on delete cascade,
      user_token uuid not null,
      at bigint not null)`);
    this.addSql(`create index login_failures_user on login_failures (tenant_id, user_token, at)`);
    this.addSql(`create table rate_limits (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint)`);
    this.addSql(`create table shared_record_tenants (
      recorduuid uuid primary key,
      tenant_id int not null references tenants (id) on delete cascade)`);
    // A tenant's database role sees and writes only its own entries (policies: Database.grantTenantRole).
    this.addSql(`alter table shared_record_tenants enable row level security`);
    // Shared records made before this migration are indexed too: their links keep working.
    const tenants = (await this.execute(`select id from "${GLOBAL_SCHEMA}".tenants`)) as { id: number }[];
    for (const { id } of tenants) {
      const schema = tenantSchema(Number(id));
      const [exists] = (await this.execute(`select 1 as ok from information_schema.tables where table_schema = '${schema}' and table_name = 'shared_records'`)) as unknown[];
      if (!exists) continue;
      this.addSql(`insert into "${GLOBAL_SCHEMA}".shared_record_tenants (recorduuid, tenant_id) select recorduuid, ${Number(id)} from "${schema}".shared_records on conflict do nothing`);
    }
  }
}
