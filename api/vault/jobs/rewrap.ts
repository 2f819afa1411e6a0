// Master-key rotation in the background: every person's wrapped key is wrapped again under the active master
// version, a batch per transaction, so rotation costs per person, not per record. The progress is the key table
// itself (each key names its version), so the work resumes after any restart; per tenant an advisory lock lets one
// replica do it at a time; a pause between batches keeps it from crowding out the requests it runs beside.
// Its metrics (strongroom_rewrap_*: keys pending, moved, failed passes, last progress) are set where the work is
// done, and show a rewrap that has stopped moving (the chart's StrongroomRewrapStalled).
import { isTenantGone } from '../../store/errors.js';
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import type { TokenizerClient } from '../../tokenizer-client.js';
import type { SubjectKeys } from '../subject-keys.js';
import { Job } from './job.js';
import { rewrapFailures, rewrapKeys, rewrapLastProgress, rewrapPending } from '../../metrics.js';

export interface RewrapProgress {
  active: number;
  /** Live person keys under the active version, and in all. */
  done: number;
  total: number;
  /** Live person keys per master version. */
  byVersion: Record<string, number>;
}

export class Rewrapper extends Job {
  /** Each tenant's pending count on /metrics, as last set: to drop the count of one deleted or revoked since. */
  private readonly counted = new Map<number, number>();

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly opts: { seconds: number; batch: number; pauseMs: number },
    private readonly keys: SubjectKeys,
  ) {
    super('key rewrap', opts.seconds, log);
  }

  protected pass(): Promise<number> {
    return this.runOnce().catch((err: unknown) => {
      rewrapFailures.inc();
      throw err;
    });
  }

  /** The stall alert measures from here until the first key moves (docs/operations.md, "Observability"). */
  override start(): void {
    rewrapLastProgress.set(Date.now() / 1000);
    super.start();
  }

  /**
   * One pass over every tenant until its keys are all under the active version; returns how many moved. A pass
   * that finds nothing left to move (so the previous one finished the rotation, an interval ago) retires the
   * versions no key is wrapped under any more.
   */
  async runOnce(maxBatches = Infinity): Promise<number> {
    const { active, versions } = await this.tokenizer.keyringInfo();
    const budget = { batches: maxBatches };
    let moved = 0;
    let complete = true;
    // A revoked tenant's keys open nowhere any more: none of them is to move.
    const tenants = (await this.db.global().tenants.all()).map((t) => t.id).filter((id) => !this.tokenizer.kekOf(id)?.revoked);
    this.forget(new Set(tenants));
    for (const id of tenants) {
      // A tenant with its own KEK keeps every key under its tenant key (key_version 0), which a master rotation
      // leaves alone: keys under any master version move there (its migration).
      const kek = this.tokenizer.kekOf(id);
      await this.tokenizer.prepare(id);
      const done = await this.rewrapTenant(id, kek ? 0 : active, budget);
      moved += done.moved;
      if (done.end === 'held') complete = false;
      if (done.end === 'stopped') return moved;
    }
    if (moved) {
      // Cached tenant keys take their new wrapping before the old version can go (read here, outside any
      // transaction: a request must never have to read one from inside its own).
      await this.keys.ensureTenantKeys((await this.db.global().tenants.all()).map((t) => t.id), Math.floor(Date.now() / 1000));
      this.log.info({ moved, active }, 'person keys rewrapped under the active master key');
    } else if (complete) {
      await this.retireUnused(active, versions);
    }
    return moved;
  }

  /**
   * One tenant's keys moved under `target`, a batch per transaction, until none is left (`done`), another replica
   * holds the tenant (`held`), or the job stops or its budget of batches is spent (`stopped`).
   */
  private async rewrapTenant(id: number, target: number, budget: { batches: number }): Promise<{ moved: number; end: 'done' | 'held' | 'stopped' }> {
    let left: number | undefined;
    let moved = 0;
    for (;;) {
      if (this.stopping || budget.batches <= 0) return { moved, end: 'stopped' };
      const batch = await this.db.write(id, false, async (stores): Promise<{ found: number; n: number } | null> => {
        if (!(await stores.locks.tryRewrap())) return null;
        const keys = await stores.subjectKeys.wrappedUnder(target, this.opts.batch);
        if (!keys.length) return { found: 0, n: 0 };
        // Counted before the tokenizer is asked: keys that fail to move show as pending.
        left ??= await stores.subjectKeys.countWrappedUnder(target);
        this.pending(id, left);
        const { rewrapped_keys } = await this.tokenizer.run(id, { rewrapKeys: keys.map((k) => ({ subject: k.token, wrapped: k.wrapped })) });
        // Only keys unchanged meanwhile are replaced: one erased since is not brought back.
        const n = await stores.subjectKeys.rewrap(keys.map((k, i) => ({ token: k.token, old: k.wrapped, wrapped: rewrapped_keys[i]! })));
        return { found: keys.length, n };
      });
      budget.batches--;
      // Another replica holds the tenant: its own metrics tell its progress.
      if (!batch) return { moved, end: 'held' };
      if (!batch.found) this.pending(id, 0);
      // Nothing is left, or every key of the batch changed meanwhile: the next tenant (the next pass looks again).
      if (!batch.n) return { moved, end: 'done' };
      moved += batch.n;
      left = Math.max(0, (left ?? batch.n) - batch.n);
      this.pending(id, left);
      rewrapKeys.inc(batch.n);
      rewrapLastProgress.set(Date.now() / 1000);
      if (this.opts.pauseMs) await new Promise((resolve) => setTimeout(resolve, this.opts.pauseMs));
    }
  }

  /** Keys found to move where none were: the stall alert measures from here, not from the last rotation's end. */
  private pending(id: number, n: number): void {
    if (n > 0 && !this.counted.get(id)) rewrapLastProgress.set(Date.now() / 1000);
    rewrapPending.set({ tenant: String(id) }, n);
    this.counted.set(id, n);
  }

  /** Drops the pending count of the tenants not in `live` (deleted, or revoked: their keys will never move). */
  private forget(live: Set<number>): void {
    for (const t of this.counted.keys()) {
      if (live.has(t)) continue;
      rewrapPending.remove({ tenant: String(t) });
      this.counted.delete(t);
    }
  }

  /**
   * Retires every version but the active one and version 1 (which derives lookup hashes and tokens) once no key of
   * any tenant is wrapped under it. Every record is sealed under a data key (a person's or the tenant's own) but the
   * keyring sentinel, which is version 1's: so a version no key names seals nothing.
   */
  private async retireUnused(active: number, versions: number[]): Promise<void> {
    const old = versions.filter((v) => v !== active && v !== 1);
    if (!old.length) return;
    const { byVersion } = await this.progress();
    for (const v of old) {
      if (byVersion[v]) continue;
      await this.tokenizer.retire(v);
      this.log.info({ version: v }, 'master key version retired: no key is wrapped under it any more');
    }
  }

  /** Live person keys per master version across every tenant, against the active version. */
  async progress(): Promise<RewrapProgress> {
    const { active } = await this.tokenizer.keyringInfo();
    const byVersion: Record<string, number> = {};
    for (const { id } of await this.db.global().tenants.all()) {
      // A tenant deleted since it was listed has no keys left to count.
      const counts = await this.db.stores(id).subjectKeys.countsByVersion().catch((err: unknown) => (isTenantGone(err) ? new Map<number, number>() : Promise.reject(err)));
      for (const [v, n] of counts) byVersion[v] = (byVersion[v] ?? 0) + n;
    }
    const total = Object.values(byVersion).reduce((a, b) => a + b, 0);
    // Keys under a tenant's own KEK (version 0) need no rotation.
    return { active, done: (byVersion[active] ?? 0) + (byVersion[0] ?? 0), total, byVersion };
  }
}
