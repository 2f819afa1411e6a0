// Bulk unlock UUIDs: 60 seconds, reusable within the window, bound to the issuing credential and tenant.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../store/database.js';
import { Unlock } from '../store/entities/global.js';
import { forbidden, Messages } from '../errors.js';
import { isUuid } from './identities.js';
import type { Principal } from './credentials.js';

export class Unlocks {
  constructor(
    private readonly db: Database,
    private readonly seconds: number,
  ) {}

  async issue(principal: Principal, tenantId: number, now: number): Promise<{ unlockuuid: string; expires: number }> {
    const em = this.db.global();
    await em.nativeDelete(Unlock, { expiresAt: { $lte: now } });
    const unlockuuid = randomUUID();
    const expires = now + this.seconds;
    await em.insert(Unlock, { uuid: unlockuuid, credentialId: principal.credentialId, tenantId, expiresAt: expires });
    return { unlockuuid, expires };
  }

  /**
   * 403 unless the UUID was issued to this credential for this tenant and is still within its window.
   * A write operation passes its transaction's manager: the embedded database serves one connection at a time,
   * so a second connection opened while the transaction holds the first would wait forever.
   */
  async check(unlockuuid: string | undefined, principal: Principal, tenantId: number, now: number, em?: EntityManager): Promise<void> {
    if (!unlockuuid || !isUuid(unlockuuid)) throw forbidden(Messages.badUnlock);
    const row = await (em ?? this.db.global()).findOne(
      Unlock,
      { uuid: unlockuuid.toLowerCase(), credentialId: principal.credentialId, tenantId, expiresAt: { $gt: now } },
      { disableIdentityMap: true },
    );
    if (!row) throw forbidden(Messages.badUnlock);
  }
}
