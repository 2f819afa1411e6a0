// Per-user files: metadata here, sealed content in the blob store under a random key. The name is sealed too;
// lookups by name and content go through keyed hashes. Tags are stored as given (normalised, not secret).
import { Migration } from '@mikro-orm/migrations';

export class Tenant0007Files extends Migration {
  override name = 'Tenant0007Files';

  override up(): void {
    this.addSql(`create table files (
      fileuuid uuid primary key,
      user_token uuid not null references users (token) on delete cascade,
      object_key text not null unique,
      name_sealed bytea not null,
      name_hash bytea not null,
      mimetype text not null,
      size bigint not null,
      content_hash bytea not null,
      tags text[] not null default '{}',
      created bigint not null,
      finaltime bigint null,
      slidingtime bigint null,
      expires_at bigint null,
      unique (user_token, content_hash))`);
    this.addSql(`create index files_user_name on files (user_token, name_hash, created)`);
    this.addSql(`create index files_tags on files using gin (tags)`);
    this.addSql(`create index files_expires_at on files (expires_at) where expires_at is not null`);
    // Objects whose rows are gone, however they went (FileDelete, a user's removal, expiry, the cascades): the
    // trigger records the key in the same transaction, and the api deletes the object only once that commits.
    this.addSql(`create table file_trash (
      object_key text primary key,
      since bigint not null)`);
    this.addSql(`create function file_trash_add() returns trigger language plpgsql set search_path from current as $fn$
      begin
        insert into file_trash (object_key, since) values (old.object_key, extract(epoch from now())::bigint)
        on conflict (object_key) do nothing;
        return null;
      end
      $fn$`);
    this.addSql(`create trigger files_trash after delete on files for each row execute function file_trash_add()`);
  }
}
