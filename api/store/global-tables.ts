// The base of every store of the global schema: the handle its statements run on (a transaction, or the pool).
import { GLOBAL_SCHEMA } from './schemas.js';
import type { Row, Sql } from './sql.js';

export abstract class GlobalTables {
  /** The global schema, quoted for statement text. */
  protected readonly g = `"${GLOBAL_SCHEMA}"`;

  constructor(protected readonly handle: Sql) {}

  protected sql<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.handle.query<T>(text, params);
  }
}
