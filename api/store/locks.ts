// Advisory locks that elect one replica for a tenant's background work.
import { TenantTables } from './tenant-tables.js';

/**
 * The session advisory lock (Database.tryExclusive) held by the one replica that signs and writes a tenant's audit
 * checkpoint: a session lock, because signing and writing it out must not keep a transaction open.
 */
export function checkpointLock(tenantId: number): string {
  return `strongroom:checkpoint:${tenantId}`;
}

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
