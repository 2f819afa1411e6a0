// Credentials found by whom they stand for: a person's login xtokens (removed with the person) and a role's xtokens
// (listed by admins). Row-level security lets a tenant's database role remove its own people's login xtokens in
// the removing transaction and nothing else; the vault's own user owns the table and is not bound by it.
import { Migration } from '@mikro-orm/migrations';

export class Global0005Credentials extends Migration {
  override name = 'Global0005Credentials';

  override up(): void {
    this.addSql(`create index credentials_user on credentials (tenant_id, user_token) where user_token is not null`);
    this.addSql(`create index credentials_role_id on credentials (role_id) where role_id is not null`);
    // Without a policy nobody but the owner sees a row: tenant roles get theirs in Database.grantTenantRole.
    this.addSql(`alter table credentials enable row level security`);
  }
}
