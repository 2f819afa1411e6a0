// The base of every store of the global schema: the manager it runs on (its transaction, if any).
import type { EntityManager } from '@mikro-orm/postgresql';
import { GLOBAL_SCHEMA } from './schemas.js';
import { query } from './sql.js';

export abstract class GlobalTables {
  /** The global schema, quoted for statement text. */
  protected readonly g = `"${GLOBAL_SCHEMA}"`;

  constructor(protected readonly em: EntityManager) {}

  protected sql<T = Record<string, unknown>>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return query<T>(this.em, text, params);
  }
}
