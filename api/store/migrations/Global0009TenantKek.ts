// A tenant's own key-encryption key (an HSM object, `pkcs11` custody): its label and the tenant key it wraps (made
// inside the HSM by the tokenizer; the api never sees the tenant key), and when it was revoked. A label names the
// KEK of at most one live tenant: revoking one tenant's would otherwise shred another's.
import { Migration } from '@mikro-orm/migrations';

export class Global0009TenantKek extends Migration {
  override name = 'Global0009TenantKek';

  override up(): void {
    this.addSql(`alter table tenants add column kek_label text null, add column kek_wrapped bytea null, add column kek_revoked bigint null`);
    this.addSql(`create unique index tenants_kek_label on tenants (kek_label) where kek_label is not null and kek_revoked is null`);
  }
}
