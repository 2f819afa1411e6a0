// Verification of a tenant's audit trail with the key: every stored link is recomputed by the tokenizer (which
// alone holds the tenant's audit key), and every public digest here; the sequence numbers must run without a gap, the head must be the last
// event's link, and every signed checkpoint this api knows must still match. AuditVerify asks; one replica at a
// time also runs it on a schedule, and the metrics tell when it last did and how far the chain held.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import type { TokenizerClient } from '../../tokenizer-client.js';
import { canonical } from './trail.js';
import { Periodic } from '../periodic.js';
import type { AuditCheckpoints } from './checkpoints.js';
import { auditBroken, auditVerifiedAt, auditVerifiedSequence } from '../../metrics.js';
import { followingDigest } from '../../../proto/audit-checkpoint.js';
import type { AuditHead } from '../../store/audit.js';
import { ConflictError } from '../../errors.js';
import type { MigrationState } from '../events.js';

export type BrokenWhy = 'link' | 'gap' | 'checkpoint mismatch' | 'cut';

export interface Verdict {
  result: 'intact' | 'broken';
  /** The sequence numbers examined: from the first event to the head, or to the first broken one. */
  checked: { from: number; to: number };
  broken?: { seq: number; why: BrokenWhy };
}

// Events per tokenizer call: one round trip recomputes a thousand links.
const BATCH = 1_000;

/** A head found intact, and the running hash of the stored links up to it (`linksHash`). */
type Mark = AuditHead & { links: Buffer };

/** The running hash of stored links: sha256(so far ‖ link), from empty. */
function linksHash(soFar: Buffer, link: Buffer): Buffer {
  return createHash('sha256').update(soFar).update(link).digest();
}

export class AuditVerifier {
  /** Every tenant, by one replica at a time (PostgreSQL advisory lock); every `seconds`, 0: never. */
  private readonly schedule: Periodic;

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly checkpoints: Pick<AuditCheckpoints, 'known'>,
    private readonly opts: {
      seconds: number;
      /** Tenants left out of scheduled passes: those whose legacy trail is still to be re-chained (vault/jobs/legacy.ts). */
      migration?: MigrationState | undefined;
      /** Tells the tokenizer the newest head this process committed, before its own newest is read (AuditLinker.reportNow). */
      reportCommitted?: ((tenantId: number) => Promise<void>) | undefined;
      /**
       * The newest head this process committed (AuditLinker.committedSeq): a tokenizer killed before it saved the
       * head it was told forgets it, and this process's memory is then the only record of the longer trail.
       */
      committedHere?: ((tenantId: number) => number) | undefined;
    },
  ) {
    this.schedule = new Periodic(opts.seconds, () => this.verifyAll(), (err: unknown) => this.log.error({ err: { type: (err as Error).name, message: (err as Error).message } }, 'audit verification failed'));
  }

  /**
   * The tenant's verdict. One run per tenant at a time: a second call while one runs in this process gets that run's
   * verdict; while another replica runs one, ConflictError (409). Incremental from the last head this process found
   * intact (`verified`): the events up to it are not linked again by the tokenizer, only their public digests are
   * recomputed here, which must reach the digest remembered for that head (an edit anywhere before it, digests
   * rewritten or not, shows); the events after it are linked through the tokenizer as in a full run.
   */
  verify(tenantId: number): Promise<Verdict> {
    // A call that comes while a run is under way gets the next run, which starts once that one ends: a run started
    // before a change to the trail must not answer a call made after it. Calls that come meanwhile share that run.
    const next = this.next.get(tenantId);
    if (next) return next;
    const running = this.running.get(tenantId);
    const start = () => {
      this.next.delete(tenantId);
      const run = this.verifyAlone(tenantId).finally(() => this.running.delete(tenantId));
      this.running.set(tenantId, run);
      return run;
    };
    if (!running) return start();
    const after = running.then(start, start);
    this.next.set(tenantId, after);
    return after;
  }

  private readonly running = new Map<number, Promise<Verdict>>();
  private readonly next = new Map<number, Promise<Verdict>>();
  /**
   * Per tenant, the last head found intact by this process, with a running hash of every stored link up to it (kept
   * in memory only: the database's writers can't move it). Before it, links are not recomputed, but held to this.
   */
  private readonly verified = new Map<number, Mark>();

  private async verifyAlone(tenantId: number): Promise<Verdict> {
    const verdict = await this.db.tryExclusive(`strongroom:audit-verify:${tenantId}`, () => this.check(tenantId));
    if (!verdict) throw new ConflictError('An audit verification of this tenant is already running on another replica: ask again once it has ended');
    const tenant = String(tenantId);
    auditVerifiedAt.set({ tenant }, Math.floor(Date.now() / 1000));
    auditVerifiedSequence.set({ tenant }, verdict.broken ? verdict.broken.seq - 1 : verdict.checked.to);
    auditBroken.set({ tenant }, verdict.broken ? 1 : 0);
    if (verdict.broken) this.log.error({ tenantId, ...verdict.broken }, 'audit trail broken');
    return verdict;
  }

  private async check(tenantId: number): Promise<Verdict> {
    const mark = this.verified.get(tenantId);
    const verdict = await this.checkFrom(tenantId, mark);
    // Events before the remembered head changed (their digests rewritten to match): a full run finds the first one.
    if (mark && verdict.broken?.why === 'link' && verdict.broken.seq === mark.seq) {
      this.verified.delete(tenantId);
      return this.check(tenantId);
    }
    if (verdict.result === 'intact') this.verified.set(tenantId, { ...verdict.head, links: verdict.links });
    else this.verified.delete(tenantId);
    return verdict.public;
  }

  private async checkFrom(tenantId: number, mark: Mark | undefined): Promise<{ result: Verdict['result']; broken?: Verdict['broken']; public: Verdict; head: AuditHead; links: Buffer }> {
    await this.tokenizer.prepare(tenantId);
    const store = this.db.stores(tenantId).audit;
    // Checkpoints first: one signed after the head is read would name events this pass does not reach.
    const signed = await this.checkpoints.known(tenantId);
    // And the newest head the tokenizer knows committed (kept beside its keyring), read before the head: a trail that
    // now ends before it lost its last events, however well the links left chain.
    // (This process's own newest, appended in the last moment and not yet reported, is told to it first.)
    await this.opts.reportCommitted?.(tenantId);
    const highWater = await this.tokenizer.auditHighWater(tenantId);
    // Read before the head too: committed heads only move on, so a head read after it is at least as new unless cut.
    const committedHere = this.opts.committedHere?.(tenantId) ?? 0;
    const head = await store.head();
    let linksSeen: Buffer = Buffer.alloc(0);
    const out = (v: Verdict) => ({ result: v.result, broken: v.broken, public: v, head, links: linksSeen });
    const broken = (seq: number, why: BrokenWhy) => out({ result: 'broken', checked: { from: 1, to: seq }, broken: { seq, why } });
    if (mark && head.seq < mark.seq) return broken(head.seq + 1, 'cut');
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
      // Links are asked only past the head already verified: before it, the digests alone are recomputed.
      const known = mark ? linked.filter((r) => r.seq <= mark.seq).length : 0;
      const links = known < linked.length ? await this.tokenizer.chainAudit(tenantId, known ? linked[known - 1]!.hash : prev, linked[known]!.seq, texts.slice(known)) : [];
      for (const [i, r] of linked.entries()) {
        digest = followingDigest(digest, r.seq, texts[i]!, r.digest);
        if (!r.digest?.equals(digest)) return broken(r.seq, 'link');
        if (i >= known && !links[i - known]!.equals(r.hash)) return broken(r.seq, 'link');
        linksSeen = linksHash(linksSeen, r.hash);
        // At the mark: its link and digest, and every stored link before it, as they were found intact.
        if (mark && r.seq === mark.seq && !(r.hash.equals(mark.hash) && digest.equals(mark.digest) && linksSeen.equals(mark.links))) return broken(r.seq, 'link');
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
    if (Math.max(highWater.seq, committedHere) > head.seq) return broken(head.seq + 1, 'cut');
    return out({ result: 'intact', checked: { from: head.seq ? 1 : 0, to: head.seq } });
  }

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
      for (const { id } of await this.db.global().tenants.all()) if (!this.opts.migration?.isMigrating(id)) out.set(id, await this.verify(id));
      return out;
    });
  }
}
