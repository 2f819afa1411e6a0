// A tenant schema's first tables: users, their versions, the hash-chained audit trail.
// The SQL is unqualified: the migrator runs it once per tenant with that tenant's schema as search_path.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0001Users extends Migration {
  override name = 'Tenant0001Users';

  override up(): void {
    this.addSql(`create table users (
      token uuid primary key,
      -- Creation order, for stable pagination: created (seconds) ties within a second.
      seq bigint generated always as identity unique,
      profile bytea not null,
      login_idx bytea null unique,
      email_idx bytea null unique,
      phone_idx bytea null unique,
      custom_idx bytea null unique,
      version int not null,
      created bigint not null,
      updated bigint not null,
      finaltime bigint null,
      slidingtime int null,
      expires_at bigint null)`);
    this.addSql(`create index users_expires_at on users (expires_at) where expires_at is not null`);
    this.addSql(`create table user_versions (
      token uuid not null,
      version int not null,
      profile bytea not null,
      optime bigint not null,
      primary key (token, version))`);
    this.addSql(`create table audit_events (
      seq bigint primary key,
      uuid uuid not null unique,
      "when" bigint not null,
      title text not null,
      status text not null,
      msg text null,
      actor text not null,
      record uuid null,
      mode text null,
      app text null,
      details bytea null,
      hash bytea not null)`);
    this.addSql(`create index audit_events_record on audit_events (record, seq)`);
    this.addSql(`create table audit_head (id int primary key check (id = 1), seq bigint not null, hash bytea not null)`);
    this.addSql(`insert into audit_head (id, seq, hash) values (1, 0, '\\x')`);
  }
}
