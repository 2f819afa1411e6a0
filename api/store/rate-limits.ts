// rate-limiter-flexible's PostgreSQL store on the vault's own database, embedded or not: its statements run
// through the vault's pool, against the table of migration Global0006Bounds.
import { GlobalTables } from './global-tables.js';
import { GLOBAL_SCHEMA } from './schemas.js';

export const RATE_LIMIT_SCHEMA = GLOBAL_SCHEMA;
export const RATE_LIMIT_TABLE = 'rate_limits';

/** The `{ query }` client rate-limiter-flexible's RateLimiterPostgres calls (its `storeClient`). */
export class RateLimitClient extends GlobalTables {
  async query(q: { text: string; values?: unknown[] }): Promise<{ rows: Record<string, unknown>[]; rowCount: number }> {
    const rows = await this.sql(q.text, q.values ?? []);
    return { rows, rowCount: rows.length };
  }

  /** Removes counters whose window has passed (the sweeper). */
  async sweep(nowMs: number): Promise<void> {
    await this.sql(`delete from ${this.g}.${RATE_LIMIT_TABLE} where expire < $1`, [nowMs]);
  }
}
