// The base of every tenant store: the manager it runs on (its transaction, if any) and the tenant it runs for.
import type { EntityManager } from '@mikro-orm/postgresql';
import { tenantSchema } from './schemas.js';
import { query, queryThenCommit } from './sql.js';

export abstract class TenantTables {
  /** The tenant's schema, quoted for statement text. */
  protected readonly t: string;
  protected readonly schema: string;

  constructor(
    protected readonly em: EntityManager,
    readonly tenantId: number,
  ) {
    this.schema = tenantSchema(tenantId);
    this.t = `"${this.schema}"`;
  }

  /** One statement on this store's connection, as the tenant's database role where there is one. */
  protected sql<T = Record<string, unknown>>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return query<T>(this.em, text, params, this.tenantId);
  }

  /** A statement that ends the write transaction it runs in, COMMIT going with it (`queryThenCommit`). */
  protected sqlThenCommit<T = Record<string, unknown>>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return queryThenCommit<T>(this.em, text, params, this.tenantId);
  }
}
