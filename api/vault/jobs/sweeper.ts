// Removes expired records on a schedule. Reads already hide them; the sweeper frees the space and makes the
// expiry final. Every replica runs the timer, but per tenant only the one holding the advisory lock sweeps.
import { publishRows } from '../privacy/events.js';
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import type { Stores } from '../../store/stores.js';
import type { Files } from '../files.js';
import type { Logins } from '../logins.js';
import type { AuditTrail } from '../audit/trail.js';
import { nowSeconds } from '../durations.js';
import { Job } from './job.js';

// Rows per statement: a long backlog is cleared over several statements, never in one huge transaction.
const BATCH = 5_000;

/**
 * One tenant's expiry steps, each doing at most BATCH rows. Users take their versions, app data, agreements,
 * sessions, shared records, requests and memberships with them (cascades); the rest expire on their own.
 */
const SWEEPS: ((stores: Stores, now: number) => Promise<number>)[] = [
  (stores, now) => stores.users.sweep(now, BATCH),
  (stores, now) => stores.tokens.sweep(now, BATCH),
  (stores, now) => stores.sessions.sweep(now, BATCH),
  (stores, now) => stores.shared.sweep(now, BATCH),
  // Agreements are not removed: past their end they become `expired` (a `consent.expired` event each), and pending
  // ones begin at their start.
  async (stores, now) => {
    const { count, expired } = await stores.consent.sweep(now, BATCH);
    const events = expired.map((e) => ({ type: 'consent.expired' as const, person: e.token, data: { brief: e.brief } }));
    if (events.length) await stores.privacyEvents.publish(publishRows(events, Date.now()), now);
    return count;
  },
  // Files' rows go here (their objects are trashed by a trigger); Files deletes the objects after the commit.
  (stores, now) => stores.files.sweep(now, BATCH),
];

/** Every `seconds`; 0 turns it off. A sweep still running (a big backlog) is not stacked with another. */
export class Sweeper extends Job {
  private readonly files: Pick<Files, 'sweep' | 'sweepOrphans'> | undefined;
  private readonly logins: Pick<Logins, 'sweep'> | undefined;
  private readonly audit: Pick<AuditTrail, 'drainIfQueued'> | undefined;
  private readonly eventRetentionSeconds: number | undefined;

  /** `also`: the services whose own leftovers (objects, login codes, queued audit events) each pass clears too. */
  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly seconds: number,
    also: { files?: Pick<Files, 'sweep' | 'sweepOrphans'>; logins?: Pick<Logins, 'sweep'>; audit?: Pick<AuditTrail, 'drainIfQueued'>; eventRetentionSeconds?: number } = {},
  ) {
    super('sweep', seconds, log);
    ({ files: this.files, logins: this.logins, audit: this.audit, eventRetentionSeconds: this.eventRetentionSeconds } = also);
  }

  protected pass(): Promise<number> {
    return this.sweepOnce();
  }

  /** One pass over every tenant; returns how many records went. */
  async sweepOnce(now = nowSeconds()): Promise<number> {
    const tenants = await this.db.global().tenants.all();
    let removed = 0;
    for (const { id } of tenants) {
      for (;;) {
        const counts = await this.db.write(id, false, async (stores): Promise<number[]> => {
          if (!(await stores.locks.trySweep())) return [];
          const counts: number[] = [];
          for (const step of SWEEPS) counts.push(await step(stores, now));
          return counts;
        });
        removed += counts.reduce((a, b) => a + b, 0);
        if (counts.every((n) => n < BATCH)) break;
      }
      await this.files?.sweep(id);
      // Privacy events past their retention, with their deliveries (none pending).
      if (this.eventRetentionSeconds) {
        while ((await this.db.write(id, false, (tx) => tx.privacyEvents.sweep((now - this.eventRetentionSeconds!) * 1000, BATCH))) >= BATCH);
      }
      // Events of writes whose process stopped between their commit and their chaining.
      await this.audit?.drainIfQueued(id);
    }
    await this.files?.sweepOrphans(now);
    // Login state and rate-limit counters past their time (idempotent: any replica may do it).
    await this.logins?.sweep(now);
    await this.db.global().rateLimits.sweep(Date.now());
    if (removed) this.log.info({ removed }, 'expired records removed');
    return removed;
  }
}
