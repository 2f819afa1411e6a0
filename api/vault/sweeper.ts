// Removes expired records on a schedule. Reads already hide them; the sweeper frees the space and makes the
// expiry final. Every replica runs the timer, but per tenant only the one holding the advisory lock sweeps.
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import { tenantSchema } from '../store/database.js';
import { Tenant } from '../store/entities/global.js';
import { TokenStore } from '../store/tokens.js';
import { UserStore } from '../store/users.js';
import { query } from '../store/sql.js';
import { nowSeconds } from './durations.js';

// Rows per statement: a long backlog is cleared over several statements, never in one huge transaction.
const BATCH = 5_000;

export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly seconds: number,
  ) {}

  start(): void {
    if (!this.seconds || this.timer) return;
    this.timer = setInterval(() => {
      // A sweep still running (a big backlog) is not stacked with another.
      if (this.running) return;
      this.running = this.sweepOnce()
        .catch((err: unknown) => this.log.error({ err: { type: (err as Error).name, message: (err as Error).message } }, 'sweep failed'))
        .finally(() => (this.running = undefined));
    }, this.seconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over every tenant; returns how many records went. */
  async sweepOnce(now = nowSeconds()): Promise<number> {
    const tenants = await this.db.global().find(Tenant, {}, { fields: ['id'], disableIdentityMap: true });
    let removed = 0;
    for (const { id } of tenants) {
      for (;;) {
        const [users, tokens] = await this.db.forTenant(id).transactional(async (tx): Promise<[number, number]> => {
          // Transaction-scoped, so the lock can never outlive the sweep or stick to a pooled connection.
          const [lock] = await query<{ locked: boolean }>(tx, 'select pg_try_advisory_xact_lock(hashtext($1)) as locked', [`strongroom:sweep:${id}`]);
          if (!lock?.locked) return [0, 0];
          // Users take their versions, app data and memberships with them (cascades); tokens stand alone.
          return [await new UserStore(tx, tenantSchema(id)).sweep(now, BATCH), await new TokenStore(tx, tenantSchema(id)).sweep(now, BATCH)];
        });
        removed += users + tokens;
        if (users < BATCH && tokens < BATCH) break;
      }
    }
    if (removed) this.log.info({ removed }, 'expired records removed');
    return removed;
  }
}
