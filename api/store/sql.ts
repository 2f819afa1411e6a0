// Parameterised SQL on the manager's connection (or its open transaction), with server-side parameters:
// bulk rows and bytea values travel as parameters instead of being formatted into the statement text.
import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';

// The pg pool behind each ORM connection, registered when the database opens. Statements outside a
// transaction go straight to it: the hot read path skips the query builder's executor layers.
const pools = new WeakMap<object, { main: pg.Pool; tenant?: ((tenantId: number) => pg.Pool | undefined) | undefined }>();

/** The main pool, and (with per-tenant roles) the pool for a tenant's plain statements. */
export function registerPool(connection: object, main: pg.Pool, tenant?: (tenantId: number) => pg.Pool | undefined): void {
  pools.set(connection, { main, tenant });
}

// The pool of the key table's own database, when it has one (STRONGROOM_KEYS_DATABASE_URL), by ORM connection.
const keysPools = new WeakMap<object, pg.Pool>();

export function registerKeysPool(connection: object, pool: pg.Pool): void {
  keysPools.set(connection, pool);
}

/** The key database's pool for this manager's vault, or undefined when the key table is in the vault's own database. */
export function keysPoolOf(em: EntityManager): pg.Pool | undefined {
  return keysPools.get(em.getConnection());
}

/**
 * The one way a statement reaches the database. `sql` uses $1, $2… placeholders. Runs inside the manager's
 * transaction when it has one; otherwise a tenant's statement (`tenantId` given) runs as the tenant's database
 * role where there is one.
 */
export async function query<T = Record<string, unknown>>(em: EntityManager, sql: string, params: readonly unknown[] = [], tenantId?: number): Promise<T[]> {
  const tx = em.getTransactionContext();
  if (!tx) {
    const connection = em.getConnection();
    const registered = pools.get(connection);
    if (registered) {
      const pool = (tenantId !== undefined && registered.tenant?.(tenantId)) || registered.main;
      return (await pool.query(sql, params as unknown[])).rows as T[];
    }
    return (await connection.getClient().executeQuery(CompiledQuery.raw(sql, params as unknown[]))).rows as T[];
  }
  return (await tx.executeQuery(CompiledQuery.raw(sql, params as unknown[]))).rows as T[];
}
