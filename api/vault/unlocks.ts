// Bulk unlock UUIDs: 60 seconds, reusable within the window, bound to the issuing credential and tenant.
import { randomUUID } from 'node:crypto';
import type { Database } from '../store/database.js';
import type { GlobalStores } from '../store/stores.js';
import { forbidden, Messages } from '../errors.js';
import { isUuid } from './identities.js';
import type { Principal } from './credentials.js';

export class Unlocks {
  constructor(
    private readonly db: Database,
    private readonly seconds: number,
  ) {}

  async issue(principal: Principal, tenantId: number, now: number): Promise<{ unlockuuid: string; expires: number }> {
    const unlockuuid = randomUUID();
    const expires = now + this.seconds;
    await this.db.global().unlocks.insert(unlockuuid, principal.credentialId, tenantId, expires, now);
    return { unlockuuid, expires };
  }

  /**
   * 403 unless the UUID was issued to this credential for this tenant and is still within its window.
   * A write operation passes its transaction's stores: the embedded database serves one connection at a time,
   * so a second connection opened while the transaction holds the first would wait forever.
   */
  async check(unlockuuid: string | undefined, principal: Principal, tenantId: number, now: number, stores: GlobalStores = this.db.global()): Promise<void> {
    if (!unlockuuid || !isUuid(unlockuuid)) throw forbidden(Messages.badUnlock);
    const valid = await stores.unlocks.isValid(unlockuuid.toLowerCase(), principal.credentialId, tenantId, now);
    if (!valid) throw forbidden(Messages.badUnlock);
  }
}
