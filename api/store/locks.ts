// Advisory locks that elect one replica for a tenant's background work.
import { TenantTables } from './tenant-tables.js';

export class LockStore extends TenantTables {
  /**
   * Transaction-scoped, so the lock can never outlive the work or stick to a pooled connection: true for the one
   * replica that may sweep this tenant now.
   */
  async trySweep(): Promise<boolean> {
    const [lock] = await this.sql<{ locked: boolean }>('select pg_try_advisory_xact_lock(hashtext($1)) as locked', [`strongroom:sweep:${this.tenantId}`]);
    return lock?.locked === true;
  }

  /** As trySweep, for re-wrapping the tenant's person keys under a new master version (one replica at a time). */
  async tryRewrap(): Promise<boolean> {
    const [lock] = await this.sql<{ locked: boolean }>('select pg_try_advisory_xact_lock(hashtext($1)) as locked', [`strongroom:rewrap:${this.tenantId}`]);
    return lock?.locked === true;
  }
}
