// Parameterised SQL on the manager's connection (or its open transaction), with server-side parameters:
// bulk rows and bytea values travel as parameters instead of being formatted into the statement text.
import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';

// The pg pool behind each ORM connection, registered when the database opens. Statements outside a
// transaction go straight to it: the hot read path skips the query builder's executor layers.
const pools = new WeakMap<object, pg.Pool>();

export function registerPool(connection: object, pool: pg.Pool): void {
  pools.set(connection, pool);
}

/** `sql` uses $1, $2… placeholders. Runs inside the manager's transaction when it has one. */
export async function query<T = Record<string, unknown>>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  const tx = em.getTransactionContext();
  if (!tx) {
    const connection = em.getConnection();
    const pool = pools.get(connection);
    if (pool) return (await pool.query(sql, params as unknown[])).rows as T[];
    return (await connection.getClient().executeQuery(CompiledQuery.raw(sql, params as unknown[]))).rows as T[];
  }
  return (await tx.executeQuery(CompiledQuery.raw(sql, params as unknown[]))).rows as T[];
}

/** A unique-constraint violation, whether pg or the ORM reports it. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; name?: string };
  return e.code === '23505' || e.name === 'UniqueConstraintViolationException';
}
