// Groups of a tenant and their members, each membership with an optional (global) role.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0004Groups extends Migration {
  override name = 'Tenant0004Groups';

  override up(): void {
    this.addSql(`create table groups (
      id serial primary key,
      name text not null unique,
      description text not null default '',
      type varchar(30) not null default 'users',
      created bigint not null)`);
    this.addSql(`create table group_members (
      group_id int not null references groups (id) on delete cascade,
      user_token uuid not null references users (token) on delete cascade,
      role_id int null,
      primary key (group_id, user_token))`);
    this.addSql(`create index group_members_user on group_members (user_token)`);
  }
}
