// Per-person data keys (envelope encryption). Each person's data is sealed under their own key, kept here only
// wrapped by the tokenizer; erasing a person nulls their key, and everything sealed under it stops opening.
// Databases created before this migration hold data sealed under tenant keys only: api/vault/jobs/legacy.ts upgrades them.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0008SubjectKeys extends Migration {
  override name = 'Tenant0008SubjectKeys';

  override up(): void {
    // No foreign key to users: SystemDeleteUserProfiles removes the live row and keeps the key (restorable), and
    // an erased person's row stays as a tombstone (wrapped null) so that their audit events read as erased.
    this.addSql(`create table subject_keys (
      token uuid primary key,
      wrapped bytea null,
      key_version int null,
      created bigint not null,
      erased bigint null)`);
    this.addSql(`create index subject_keys_version on subject_keys (key_version) where wrapped is not null`);
    // A forget-me request's record outlives its person (without personal data); other requests go with them.
    this.addSql(`alter table user_requests drop constraint user_requests_user_token_fkey`);
    // Agreements' details are bound to the basis's immutable id, never to its renameable brief.
    this.addSql(`alter table legal_bases add column id uuid not null default gen_random_uuid() unique`);
  }
}
