// Format-preserving tokens: the record sealed, the tokenbase (a surrogate, safe to keep) beside it; the only
// indexes are HMACs. `base_hash` keeps every tokenbase unique in the tenant; `record_hash` exists for
// `unique: true` tokens only.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0003Tokens extends Migration {
  override name = 'Tenant0003Tokens';

  override up(): void {
    this.addSql(`create table tokens (
      tokenuuid uuid primary key,
      seq bigint generated always as identity unique,
      tokenbase text not null,
      base_hash bytea not null unique,
      record_hash bytea null unique,
      tokentype text not null,
      sealed bytea not null,
      created bigint not null,
      finaltime bigint null,
      slidingtime int null,
      expires_at bigint null)`);
    this.addSql(`create index tokens_expires_at on tokens (expires_at) where expires_at is not null`);
  }
}
