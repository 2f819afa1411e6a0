// Verification of a tenant's audit trail with the key: every stored link is recomputed by the tokenizer (which
// alone holds the tenant's audit key), and every public digest here; the sequence numbers must run without a gap, the head must be the last
// event's link, and every signed checkpoint this api knows must still match. AuditVerify asks; one replica at a
// time also runs it on a schedule, and the metrics tell when it last did and how far the chain held.
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import type { TokenizerClient } from '../tokenizer-client.js';
import { canonical } from './audit.js';
import { Periodic } from './periodic.js';
import type { AuditCheckpoints } from './audit-checkpoints.js';
import { auditBroken, auditVerifiedAt, auditVerifiedSequence } from '../metrics.js';
import { auditDigest } from '../../proto/audit-checkpoint.js';

export type BrokenWhy = 'link' | 'gap' | 'checkpoint mismatch' | 'cut';

export interface Verdict {
  result: 'intact' | 'broken';
  /** The sequence numbers examined: from the first event to the head, or to the first broken one. */
  checked: { from: number; to: number };
  broken?: { seq: number; why: BrokenWhy };
}

// Events per tokenizer call: one round trip recomputes a thousand links.
const BATCH = 1_000;

export class AuditVerifier {
  /** Every tenant, by one replica at a time (PostgreSQL advisory lock); every `seconds`, 0: never. */
  private readonly schedule: Periodic;

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly checkpoints: Pick<AuditCheckpoints, 'known'>,
    private readonly seconds: number,
  ) {
    this.schedule = new Periodic(this.seconds, () => this.verifyAll(), (err: unknown) => this.log.error({ err: { type: (err as Error).name, message: (err as Error).message } }, 'audit verification failed'));
  }

  async verify(tenantId: number): Promise<Verdict> {
    const verdict = await this.check(tenantId);
    const tenant = String(tenantId);
    auditVerifiedAt.set({ tenant }, Math.floor(Date.now() / 1000));
    auditVerifiedSequence.set({ tenant }, verdict.broken ? verdict.broken.seq - 1 : verdict.checked.to);
    auditBroken.set({ tenant }, verdict.broken ? 1 : 0);
    if (verdict.broken) this.log.error({ tenantId, ...verdict.broken }, 'audit trail broken');
    return verdict;
  }

  private async check(tenantId: number): Promise<Verdict> {
    await this.tokenizer.prepare(tenantId);
    const store = this.db.stores(tenantId).audit;
    // Checkpoints first: one signed after the head is read would name events this pass does not reach.
    const signed = await this.checkpoints.known(tenantId);
    // And the newest head the tokenizer knows committed (kept beside its keyring), read before the head: a trail that
    // now ends before it lost its last events, however well the links left chain.
    const highWater = await this.tokenizer.auditHighWater(tenantId);
    const head = await store.head();
    const broken = (seq: number, why: BrokenWhy): Verdict => ({ result: 'broken', checked: { from: 1, to: seq }, broken: { seq, why } });
    const bySeq = new Map<number, Buffer[]>();
    for (const c of signed) bySeq.set(c.seq, [...(bySeq.get(c.seq) ?? []), c.link]);
    let prev: Buffer = Buffer.alloc(0);
    let digest: Buffer = Buffer.alloc(0);
    let last = 0;
    while (last < head.seq) {
      const rows = (await store.after(last, BATCH)).filter((r) => r.seq <= head.seq);
      if (rows.length === 0) break;
      // Only the run up to the first gap is linked: past it, the links chain from an event that is not there.
      const run = rows.findIndex((r, i) => r.seq !== last + 1 + i);
      const linked = run === -1 ? rows : rows.slice(0, run);
      if (linked.length === 0) return broken(last + 1, 'gap');
      const texts = linked.map(canonical);
      const links = await this.tokenizer.chainAudit(tenantId, prev, last + 1, texts);
      for (const [i, r] of linked.entries()) {
        digest = auditDigest(digest, r.seq, texts[i]!);
        if (!links[i]!.equals(r.hash) || !r.digest?.equals(digest)) return broken(r.seq, 'link');
        if (bySeq.get(r.seq)?.some((l) => !l.equals(r.hash))) return broken(r.seq, 'checkpoint mismatch');
      }
      prev = linked.at(-1)!.hash;
      last = linked.at(-1)!.seq;
      if (run !== -1) return broken(last + 1, 'gap');
    }
    if (last < head.seq) return broken(last + 1, 'gap');
    // The head must be the last link, and nothing may be stored past it (a head moved back over events).
    if (!head.hash.equals(prev) || !head.digest.equals(digest)) return broken(Math.max(head.seq, 1), 'link');
    if (head.last > head.seq) return broken(head.seq + 1, 'link');
    // A signed checkpoint beyond the head: events it vouched for are gone.
    if (signed.some((c) => c.seq > head.seq)) return broken(head.seq + 1, 'checkpoint mismatch');
    if (highWater.seq > head.seq) return broken(head.seq + 1, 'cut');
    return { result: 'intact', checked: { from: head.seq ? 1 : 0, to: head.seq } };
  }

  /** Tenants left out of scheduled passes: those whose legacy trail is still to be re-chained (vault/legacy.ts). */
  skip: ((tenantId: number) => boolean) | undefined;

  start(): void {
    this.schedule.start();
  }

  async stop(): Promise<void> {
    await this.schedule.stop();
  }

  /** One pass over every tenant, unless another replica is running one; the verdicts by tenant id. */
  async verifyAll(): Promise<Map<number, Verdict> | undefined> {
    return this.db.tryExclusive('strongroom:audit-verify', async () => {
      const out = new Map<number, Verdict>();
      for (const { id } of await this.db.globalStores().tenants.all()) if (!this.skip?.(id)) out.set(id, await this.verify(id));
      return out;
    });
  }
}
