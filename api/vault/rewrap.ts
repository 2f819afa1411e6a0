// Master-key rotation in the background: every person's wrapped key is wrapped again under the active master
// version, a batch per transaction, so rotation costs per person, not per record. The progress is the key table
// itself (each key names its version), so the work resumes after any restart; per tenant an advisory lock lets one
// replica do it at a time; a pause between batches keeps it from crowding out the requests it runs beside.
import type { Logger } from 'pino';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../store/database.js';
import { Stores } from '../store/stores.js';
import type { TokenizerClient } from '../tokenizer-client.js';

export interface RewrapProgress {
  active: number;
  /** Live person keys under the active version, and in all. */
  done: number;
  total: number;
  /** Live person keys per master version. */
  byVersion: Record<string, number>;
}

export class Rewrapper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly opts: { seconds: number; batch: number; pauseMs: number },
  ) {}

  start(): void {
    if (!this.opts.seconds || this.timer) return;
    this.timer = setInterval(() => this.kick(), this.opts.seconds * 1000);
    this.timer.unref();
  }

  /** Runs a pass now unless one is running; a failed pass is logged and tried again at the next tick. */
  kick(): void {
    if (this.running || this.stopped) return;
    this.running = this.runOnce()
      .catch((err: unknown) => this.log.error({ err: { type: (err as Error).name, message: (err as Error).message } }, 'key rewrap failed'))
      .finally(() => (this.running = undefined));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over every tenant until its keys are all under the active version; returns how many moved. */
  async runOnce(maxBatches = Infinity): Promise<number> {
    const { active } = await this.tokenizer.keyringInfo();
    let moved = 0;
    let batches = 0;
    for (const { id } of await this.db.globalStores().tenants.all()) {
      await this.tokenizer.prepare(id);
      for (;;) {
        if (this.stopped || batches >= maxBatches) return moved;
        const n = await this.db.forTenant(id).transactional(async (tx): Promise<number | null> => {
          const stores = new Stores(tx as EntityManager, id);
          if (!(await stores.locks.tryRewrap())) return null;
          const keys = await stores.subjectKeys.wrappedUnder(active, this.opts.batch);
          if (!keys.length) return 0;
          const { rewrapped_keys } = await this.tokenizer.run(id, { rewrapKeys: keys.map((k) => ({ subject: k.token, wrapped: k.wrapped })) });
          // Only keys unchanged meanwhile are replaced: one erased since is not brought back.
          return stores.subjectKeys.rewrap(keys.map((k, i) => ({ token: k.token, old: k.wrapped, wrapped: rewrapped_keys[i]! })));
        });
        batches++;
        // Another replica holds the tenant, or nothing is left: the next tenant.
        if (!n) break;
        moved += n;
        if (this.opts.pauseMs) await new Promise((resolve) => setTimeout(resolve, this.opts.pauseMs));
      }
    }
    if (moved) this.log.info({ moved, active }, 'person keys rewrapped under the active master key');
    return moved;
  }

  /** Live person keys per master version across every tenant, against the active version. */
  async progress(): Promise<RewrapProgress> {
    const { active } = await this.tokenizer.keyringInfo();
    const byVersion: Record<string, number> = {};
    for (const { id } of await this.db.globalStores().tenants.all()) {
      for (const [v, n] of await this.db.stores(id).subjectKeys.countsByVersion()) byVersion[v] = (byVersion[v] ?? 0) + n;
    }
    const total = Object.values(byVersion).reduce((a, b) => a + b, 0);
    return { active, done: byVersion[active] ?? 0, total, byVersion };
  }
}
