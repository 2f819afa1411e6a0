// Master-key rotation in the background: every person's wrapped key is wrapped again under the active master
// version, a batch per transaction, so rotation costs per person, not per record. The progress is the key table
// itself (each key names its version), so the work resumes after any restart; per tenant an advisory lock lets one
// replica do it at a time; a pause between batches keeps it from crowding out the requests it runs beside.
import { isTenantGone } from '../../store/errors.js';
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import type { TokenizerClient } from '../../tokenizer-client.js';
import type { SubjectKeys } from '../subject-keys.js';
import { Job } from './job.js';

export interface RewrapProgress {
  active: number;
  /** Live person keys under the active version, and in all. */
  done: number;
  total: number;
  /** Live person keys per master version. */
  byVersion: Record<string, number>;
}

export class Rewrapper extends Job {
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
    return this.runOnce();
  }

  /**
   * One pass over every tenant until its keys are all under the active version; returns how many moved. A pass
   * that finds nothing left to move (so the previous one finished the rotation, an interval ago) retires the
   * versions no key is wrapped under any more.
   */
  async runOnce(maxBatches = Infinity): Promise<number> {
    const { active, versions } = await this.tokenizer.keyringInfo();
    let moved = 0;
    let batches = 0;
    let complete = true;
    for (const { id } of await this.db.global().tenants.all()) {
      const kek = this.tokenizer.kekOf(id);
      // A revoked tenant's keys open nowhere any more; a tenant with its own KEK keeps every key under its tenant key
      // (key_version 0), which a master rotation leaves alone: keys under any master version move there (its migration).
      if (kek?.revoked) continue;
      const target = kek ? 0 : active;
      await this.tokenizer.prepare(id);
      for (;;) {
        if (this.stopping || batches >= maxBatches) return moved;
        const n = await this.db.write(id, false, async (stores): Promise<number | null> => {
          if (!(await stores.locks.tryRewrap())) return null;
          const keys = await stores.subjectKeys.wrappedUnder(target, this.opts.batch);
          if (!keys.length) return 0;
          const { rewrapped_keys } = await this.tokenizer.run(id, { rewrapKeys: keys.map((k) => ({ subject: k.token, wrapped: k.wrapped })) });
          // Only keys unchanged meanwhile are replaced: one erased since is not brought back.
          return stores.subjectKeys.rewrap(keys.map((k, i) => ({ token: k.token, old: k.wrapped, wrapped: rewrapped_keys[i]! })));
        });
        batches++;
        if (n === null) complete = false;
        // Another replica holds the tenant, or nothing is left: the next tenant.
        if (!n) break;
        moved += n;
        if (this.opts.pauseMs) await new Promise((resolve) => setTimeout(resolve, this.opts.pauseMs));
      }
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
