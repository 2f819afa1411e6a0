// Fresh planner statistics after bulk loads. A bulk create checks each chunk's hashes against the tenant's people
// (`login_idx = any(…) or email_idx = any(…) …`, a few hundred values on each unique index). PostgreSQL plans that
// from the table's statistics: a table filled faster than autovacuum analyses it (or with autovacuum off) has none,
// the planner then takes each `= any` for unselective and scans the whole table for every chunk, so a bulk import
// into a new tenant slowed from 0.6 s to 3.5 s per 1,000 records as it grew. As pg_restore does, and PostgreSQL's
// advice on populating a database says, the tables a bulk load grew are analysed once enough rows have arrived since
// the last time: ANALYZE_AFTER, or a fifth of what the table held then, whichever is more.
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import type { Scope } from './scope.js';

/** Rows a tenant's bulk loads add before its tables are analysed again (at least). */
export const ANALYZE_AFTER = 1000;

interface TenantCount {
  /** Rows loaded since the last analysis began. */
  since: number;
  /** Rows the table held at the last analysis (0 before any). */
  rows: number;
}

export class BulkStatistics {
  private readonly tenants = new Map<number, TenantCount>();
  /** Tenants waiting for an analysis, in order; one runs at a time in this process, whatever the tenants. */
  private readonly waiting = new Set<number>();
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Analyses run, for tests and the log. */
  analysed = 0;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
  ) {}

  /** `count` rows were loaded in `scope`'s transaction: counted once it commits (nothing counted if it rolls back). */
  loaded(scope: Pick<Scope, 'stores' | 'tenantId'>, count: number): void {
    if (count <= 0) return;
    const add = () => this.add(scope.tenantId, count);
    if (!scope.stores.sql.onEnd('commit', add)) add();
  }

  private add(tenantId: number, count: number): void {
    const t = this.tenants.get(tenantId) ?? { since: 0, rows: 0 };
    t.since += count;
    this.tenants.set(tenantId, t);
    if (t.since >= Math.max(ANALYZE_AFTER, t.rows / 5)) this.enqueue(tenantId);
  }

  private enqueue(tenantId: number): void {
    if (this.stopped) return;
    this.waiting.add(tenantId);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  private async drain(): Promise<void> {
    for (let next = this.first(); next !== undefined && !this.stopped; next = this.first()) {
      this.waiting.delete(next);
      const t = this.tenants.get(next)!;
      // Rows loaded from here on count towards the next analysis.
      t.since = 0;
      try {
        // As the vault's own role (the tables' owner), on the main pool, outside any transaction.
        t.rows = await this.db.stores(next).stats.analysePeople();
        this.analysed++;
      } catch (err) {
        // Statistics are an optimisation: a failure (a dropped tenant, an outage) is logged and the load goes on.
        this.log.warn({ err: { message: (err as Error).message }, tenantId: next }, 'analysing tables after a bulk load failed');
      }
    }
  }

  private first(): number | undefined {
    return this.waiting.values().next().value;
  }

  /** Starts no further analysis and waits for the one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
