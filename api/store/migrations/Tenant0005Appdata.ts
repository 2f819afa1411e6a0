// Per-user app data: one sealed JSON record per (user, app), with its earlier versions.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0005Appdata extends Migration {
  override name = 'Tenant0005Appdata';

  override up(): void {
    this.addSql(`create table app_records (
      user_token uuid not null references users (token) on delete cascade,
      appname text not null,
      data bytea not null,
      version int not null,
      created bigint not null,
      updated bigint not null,
      primary key (user_token, appname))`);
    this.addSql(`create index app_records_appname on app_records (appname)`);
    this.addSql(`create table app_versions (
      user_token uuid not null references users (token) on delete cascade,
      appname text not null,
      version int not null,
      data bytea not null,
      optime bigint not null,
      primary key (user_token, appname, version))`);
  }
}
