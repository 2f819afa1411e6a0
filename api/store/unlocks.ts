// SQL for bulk unlock UUIDs: issued to one credential for one tenant, valid until they expire.
import { GlobalTables } from './global-tables.js';

export class UnlockStore extends GlobalTables {
  async insert(uuid: string, credentialId: string, tenantId: number, expiresAt: number, now: number): Promise<void> {
    await this.sql(`delete from ${this.g}.unlocks where expires_at <= $1`, [now]);
    await this.sql(`insert into ${this.g}.unlocks (uuid, credential_id, tenant_id, expires_at) values ($1, $2, $3, $4)`, [uuid, credentialId, tenantId, expiresAt]);
  }

  /** True while the UUID was issued to this credential for this tenant and has not expired. */
  async isValid(uuid: string, credentialId: string, tenantId: number, now: number): Promise<boolean> {
    const rows = await this.sql(`select 1 from ${this.g}.unlocks where uuid = $1 and credential_id = $2 and tenant_id = $3 and expires_at > $4`, [
      uuid,
      credentialId,
      tenantId,
      now,
    ]);
    return rows.length > 0;
  }
}
