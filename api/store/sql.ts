// Parameterised SQL on the manager's connection (or its open transaction), with server-side parameters:
// bulk rows and bytea values travel as parameters instead of being formatted into the statement text.
import { CompiledQuery } from 'kysely';
import type { EntityManager } from '@mikro-orm/postgresql';

/** `sql` uses $1, $2… placeholders. Runs inside the manager's transaction when it has one. */
export async function query<T = Record<string, unknown>>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  const runner = em.getTransactionContext() ?? em.getConnection().getClient();
  const res = await runner.executeQuery(CompiledQuery.raw(sql, params as unknown[]));
  return res.rows as T[];
}
