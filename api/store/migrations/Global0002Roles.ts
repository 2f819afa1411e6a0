// Roles, policies and their links: defined once in the main tenant, used by role xtokens of every tenant.
import { Migration } from '@mikro-orm/migrations';

export class Global0002Roles extends Migration {
  override name = 'Global0002Roles';

  override up(): void {
    this.addSql(`create table roles (
      id serial primary key,
      name text not null unique,
      description text not null default '',
      created bigint not null)`);
    this.addSql(`create table policies (
      id serial primary key,
      name text not null unique,
      description text not null default '',
      document jsonb not null,
      created bigint not null)`);
    this.addSql(`create table role_policies (
      role_id int not null references roles (id) on delete cascade,
      policy_id int not null references policies (id) on delete cascade,
      primary key (role_id, policy_id))`);
    this.addSql(`alter table credentials add constraint credentials_role foreign key (role_id) references roles (id) on delete cascade`);
  }
}
