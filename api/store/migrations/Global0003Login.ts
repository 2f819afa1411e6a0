// Passwordless login: captcha answers and one-time codes, both stored only as hashes, both short-lived.
import { Migration } from '@mikro-orm/migrations';

export class Global0003Login extends Migration {
  override name = 'Global0003Login';

  override up(): void {
    this.addSql(`create table captchas (
      id uuid primary key,
      answer_hash text not null,
      expires_at bigint not null)`);
    this.addSql(`create table login_codes (
      tenant_id int not null references tenants (id) on delete cascade,
      user_token uuid not null,
      code_hash text not null,
      attempts int not null default 0,
      expires_at bigint not null,
      primary key (tenant_id, user_token))`);
  }
}
