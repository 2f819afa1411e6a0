// The base of every tenant store: the handle its statements run on (the tenant's transaction, or its pool, as the
// tenant's database role where there is one) and the tenant it runs for.
import type pg from 'pg';
import { tenantSchema } from './schemas.js';
import type { Row, Sql } from './sql.js';

/** Where a tenant's stores run what the tenant's role may not, and where its wrapped keys live. */
export interface TenantPlaces {
  /** Statements as the vault's own user: the tenant's transaction itself, or the main pool outside one. */
  vault: Sql;
  /** The key database's pool (STRONGROOM_KEYS_DATABASE_URL); undefined when the keys live in the tenant's schema. */
  keys: pg.Pool | undefined;
}

export abstract class TenantTables {
  /** The tenant's schema, quoted for statement text. */
  protected readonly t: string;
  protected readonly schema: string;

  constructor(
    protected readonly handle: Sql,
    readonly tenantId: number,
    protected readonly places: TenantPlaces,
  ) {
    this.schema = tenantSchema(tenantId);
    this.t = `"${this.schema}"`;
  }

  /** One statement on this store's handle, as the tenant's database role where there is one. */
  protected sql<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.handle.query<T>(text, params);
  }

  /**
   * A statement whose rows nobody needs, sent with the transaction's next statement (`Sql.later`); its failure is
   * that statement's, told by `failure`.
   */
  protected sqlLater(text: string, params: readonly unknown[], failure?: (err: unknown) => unknown): Promise<void> {
    return this.handle.later(text, params, failure);
  }

  /** A statement that ends the write transaction it runs in, COMMIT going with it (`Sql.queryThenCommit`). */
  protected sqlThenCommit<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.handle.queryThenCommit<T>(text, params);
  }

  /** One statement as the vault's own user (what the tenant's role may not do). */
  protected asVault<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.places.vault.query<T>(text, params);
  }
}
