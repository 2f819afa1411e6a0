// The audit trail: one event per call, chained per tenant with links the tokenizer keys, details sealed by it too.
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import type { Stores } from '../../store/stores.js';
import type { AuditHead } from '../../store/audit.js';
import type { TokenizerClient } from '../../tokenizer-client.js';
import type { SubjectKeys } from '../subject-keys.js';
import { auditBatchSize, auditQueueDepth } from '../../metrics.js';
import { isTenantGone } from '../../store/errors.js';
import { notFound, Messages } from '../../errors.js';
import { RefusalRecorder } from './refusals.js';
import { QUEUED_WHEN_UNLINKED, takeTurn, type AuditDraft, type AuditEventToChain, type TenantQueue, type Waiter } from './note.js';
import { AuditLinker, auditFailure, headMoved, isBroken, isCut, type Linked } from './chainer.js';
import { sealEvents, sealReadied, type ReadiedEvent } from './seal.js';
import { holds, Prelinks, sealAheadOf, type SealedAhead } from './prelink.js';
import { linkable, refuseQueued, refuseUnlinkable } from './refused.js';
import type { Events } from '../events.js';
import type { OutboxBatch } from '../privacy/outbox.js';

// What other modules import from here: the events' shapes and texts, and the reader, now in modules of their own.
export { AUDIT_TABLE, BAD_REQUEST_MSG, canonical, canonicalHead, draftEvent, presentEvent, type AuditDraft, type AuditNote, type AuditRow } from './note.js';
export { AuditReader } from './reader.js';
export type { SealedAhead } from './prelink.js';

const MAX_BATCH = 500;
const BATCHES_IN_FLIGHT = 2;

/** A write's events as queued in its transaction, for `chained` once it has committed. */
export type QueuedWrite = readonly AuditEventToChain[];

export class AuditTrail {
  private readonly queues = new Map<number, TenantQueue>();
  private readonly flushing = new Set<number>();
  private readonly retries = new Map<number, NodeJS.Timeout>();
  private tickets = 0;
  /** Each tenant's head as this process last appended or read it: the next batch is linked from it, unlocked. */
  private readonly heads = new Map<number, AuditHead>();
  /** Per tenant, the last batch to link and the last to append: the next one waits for each in turn. */
  private readonly linking = new Map<number, Promise<void>>();
  private readonly appending = new Map<number, Promise<void>>();
  /** Its link calls (AuditVerify has it tell the tokenizer the newest committed head first). */
  readonly linker: AuditLinker;
  private readonly refusals: RefusalRecorder;
  private readonly readied = new WeakMap<AuditDraft, ReadiedEvent>(); // see `record`
  private readonly prelinks = new Prelinks();

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly keys: SubjectKeys,
    /** Told of every batch appended (the checkpointer counts events towards its next checkpoint). */
    private readonly events?: Events,
  ) {
    this.linker = new AuditLinker(tokenizer, log, db.digestForm);
    this.refusals = new RefusalRecorder((tenantId, draft) => this.record(tenantId, draft), log);
  }

  /**
   * Queues a write's events in its transaction, which the caller must have: they commit or roll back with the
   * change they describe, and no lock is taken (a write no longer waits on the chain's head). With `commit`, the
   * queueing is the transaction's last statement and commits it; the write's privacy events (`privacy`) go in the
   * same statement. Returns them, for the caller to give to `chained` once the transaction has committed.
   */
  async writeInTx(
    stores: Stores,
    drafts: AuditDraft[],
    opts: { known?: ReadonlyMap<string, Buffer | null> | undefined; ahead?: SealedAhead | undefined; commit?: boolean; privacy?: OutboxBatch | undefined } = {},
  ): Promise<QueuedWrite> {
    const { known, ahead } = opts;
    if (drafts.length === 0) return [];
    const early = ahead && drafts.length === 1 && drafts[0] === ahead.draft && known?.get(ahead.draft.record!) ? await ahead.sealed : undefined;
    const rows = early ? [early] : await sealEvents(this.tokenizer, this.keys, { stores, drafts, known, mac: true });
    await stores.audit.enqueue(rows, opts);
    return rows;
  }

  /**
   * After a write's commit: settles once its queued events are in the chain (by this process's next batch, or
   * already by another replica's), so a write is answered only once its event is linked. If the batch fails (the
   * tokenizer or the database gone), it settles all the same: the event is stored, queued, and chained by a later
   * batch; the write it describes has committed and its answer is true.
   */
  chained(tenantId: number, written: QueuedWrite): Promise<void> {
    if (written.length === 0) return Promise.resolve();
    const q = this.queueOf(tenantId);
    const done = new Promise<void>((resolve) => q.chain.add({ uuids: new Set(written.map((r) => r.uuid)), ticket: ++this.tickets, resolve }));
    q.writes.push(...written);
    if (!this.flushing.has(tenantId)) void this.flush(tenantId);
    return done;
  }

  /** Chains whatever a tenant's queue holds (events of writes whose process stopped before chaining them). */
  drain(tenantId: number): void {
    this.queueOf(tenantId).drain = true;
    if (!this.flushing.has(tenantId)) void this.flush(tenantId);
  }

  /** The sweeper's look at a tenant's queue: anything left there (its writer stopped before chaining it) is chained. */
  async drainIfQueued(tenantId: number): Promise<number> {
    const { depth } = await this.db.stores(tenantId).audit.queueDepth();
    auditQueueDepth.set({ tenant: String(tenantId) }, depth);
    if (depth) this.drain(tenantId);
    return depth;
  }

  private queueOf(tenantId: number): TenantQueue {
    let q = this.queues.get(tenantId);
    if (!q) this.queues.set(tenantId, (q = { drafts: [], waiters: [], chain: new Set(), writes: [], drain: false }));
    return q;
  }

  /**
   * Seals a write's event before the write is done, when its note is final and its person's key already read
   * (`known`): its tokenizer work then rides with the operation's own. Undefined when it cannot (no person, or
   * the key not at hand): `writeInTx` seals it then. The event is used only if the write succeeds and the person
   * still has a key at the end (a write that erased them drops the details, as ever). A read's (`mac` false) is
   * appended as it is, not queued: it needs no MAC; a lone one on an idle trail is linked ahead too (prelink.ts).
   */
  sealAhead(stores: Stores, draft: AuditDraft, known: ReadonlyMap<string, Buffer | null>, mac = true): SealedAhead | undefined {
    if (!draft.details || !draft.record || !known.get(draft.record)) return undefined;
    const { tenantId } = stores;
    const head = mac ? undefined : this.heads.get(tenantId);
    const from = head && this.prelinks.take(tenantId, !this.flushing.has(tenantId) && this.tokenizer.idle(tenantId)) ? head : undefined;
    return sealAheadOf({ tokenizer: this.tokenizer, keys: this.keys, linker: this.linker }, { stores, drafts: [draft], known, mac }, from);
  }

  /**
   * One batch: this process's committed writes' queued events (`writes`), then `drafts`, appended as the tenant's
   * database role where there is one. Answers the uuids it took off the queue, and whether it left some there.
   *
   * Usually it links from the head this process last left (batches of a tenant link one after the other here, each
   * from the head the one before it will leave, while that one appends) and appends in one round trip that holds
   * the head's lock for that statement alone. When the head is not what this
   * process thought (another replica appended, or took these writes' events), or when asked to `drain`, it locks
   * the head first, reads the database's queue (every replica's writes, the oldest first) and links from there.
   */
  private async writeAlone(tenantId: number, drafts: AuditDraft[], writes: AuditEventToChain[] = [], drain = false): Promise<{ dequeued: Set<string>; full: boolean; sawQueue: boolean }> {
    // The tenant's salt is learnt and the details sealed before anything waits: on the embedded database a lookup
    // on another connection from inside a transaction would wait forever, and sealing needs no lock.
    await this.tokenizer.prepare(tenantId);
    this.prelinks.release(tenantId);
    const rows = drafts.length ? await sealReadied(this.tokenizer, this.keys, this.db.stores(tenantId), drafts, this.readied) : [];
    // Two turns per tenant, taken in batch order: linking (the tokenizer call) and appending (the database). A batch
    // links from the head the previous one will leave as soon as that one has its links, while it appends.
    const link = takeTurn(this.linking, tenantId);
    const append = takeTurn(this.appending, tenantId);
    try {
      await link.wait;
      const head = drain ? undefined : this.heads.get(tenantId);
      // A head this process remembers may be stale (another replica appended since): a tokenizer that knows a newer
      // one refuses to link from it, and the batch is linked from the head read under the lock instead.
      const pre = head && !writes.length && rows.length === 1 ? this.readied.get(drafts[0]!)?.prelink : undefined;
      const linked = head && (holds(pre, head, rows[0]!) ? this.linker.linkedFrom(head, { queuedCount: 0, all: rows, texts: [pre.text] }, { links: [pre.link], refused: [] }) : await this.linker.link(tenantId, head, { queued: writes, rows }).catch((err: unknown) => (isCut(err) || isBroken(err) ? undefined : Promise.reject(err))));
      if (head && linked) {
        this.heads.set(tenantId, linked.head);
        link.done();
        await append.wait;
        try {
          await this.db.auditAppendAlone(tenantId, this.db.stores(tenantId).audit.appendStatement(head, linked.queued, linked.others));
          await this.appended(tenantId, linked);
          return { dequeued: new Set(writes.map((w) => w.uuid)), full: false, sawQueue: false };
        } catch (err) {
          // Refused: the head moved (another replica), or the batch before this one failed after this one linked.
          this.heads.delete(tenantId);
          if (!headMoved(err)) throw err;
        }
      }
      await append.wait;
      return await this.appendFromQueue(tenantId, rows);
    } catch (err) {
      // A batch whose commit is in doubt leaves the head unknown: the next one reads it.
      this.heads.delete(tenantId);
      throw err;
    } finally {
      link.done();
      append.done();
    }
  }

  /** Under the head's lock: the database's queue (every replica's writes, oldest first) and `rows`, linked and appended. */
  private async appendFromQueue(tenantId: number, rows: AuditEventToChain[]): Promise<{ dequeued: Set<string>; full: boolean; sawQueue: boolean }> {
    // The queue holds this process's writes too (their transactions committed), unless another chainer took them.
    const limit = Math.max(1, MAX_BATCH - rows.length);
    const { queued, linked } = await this.db.auditTransaction(tenantId, limit, async (audit, head, queued) => {
      // Read under the lock, the head is committed unless forged: the tokenizer may not know it yet (a restart).
      const linked = await this.linker.link(tenantId, head, { queued: queued.filter(linkable), rows }, true);
      if (linked.queued.length + linked.others.length) await audit.append(head, linked.queued, linked.others);
      return { queued, linked };
    });
    this.heads.set(tenantId, linked.head);
    await this.appended(tenantId, linked);
    await refuseUnlinkable(this.db, this.log, tenantId, queued);
    // More than it took: the bound on the details read stopped it before the row limit.
    const fetched = queued[0]?.fetched ?? queued.length;
    return { dequeued: new Set(queued.map((e) => e.uuid)), full: fetched >= limit || fetched > queued.length, sawQueue: true };
  }

  /** After a batch's commit: its head is committed (told to the tokenizer soon), and its refused events leave the queue. */
  private async appended(tenantId: number, linked: Linked): Promise<void> {
    const events = linked.queued.length + linked.others.length;
    if (events) {
      this.linker.appended(tenantId, linked.head);
      this.events?.emit('auditAppended', { tenantId, events });
    }
    await refuseQueued(this.db, this.log, tenantId, linked.refused, 'mac');
  }

  /**
   * Events of reads and of failed calls, committed together with other requests'; settles once this one is stored
   * (no answer leaves before). `readied`: what its call readied for it (details sealed ahead, keys read).
   */
  record(tenantId: number, draft: AuditDraft, readied?: ReadiedEvent): Promise<void> {
    if (readied) this.readied.set(draft, readied);
    const q = this.queueOf(tenantId);
    const done = new Promise<void>((resolve, reject) => q.waiters.push({ resolve, reject }));
    q.drafts.push(draft);
    if (!this.flushing.has(tenantId)) void this.flush(tenantId);
    return done;
  }

  private async flush(tenantId: number): Promise<void> {
    this.flushing.add(tenantId);
    // Two batches in flight: the second seals and waits on the head's lock while the first links and commits, so
    // the lock passes on at the first's commit instead of a round trip later.
    const inFlight = new Set<Promise<void>>();
    try {
      for (;;) {
        const q = this.queues.get(tenantId);
        const pending = q !== undefined && (q.drafts.length > 0 || q.writes.length > 0 || q.drain);
        if (!pending && inFlight.size === 0) break;
        if (!pending || inFlight.size >= BATCHES_IN_FLIGHT) {
          await Promise.race(inFlight);
          continue;
        }
        const drain = q.drain;
        q.drain = false;
        const drafts = q.drafts.splice(0, MAX_BATCH);
        const waiters = q.waiters.splice(0, drafts.length);
        const writes = q.writes.splice(0, MAX_BATCH - drafts.length);
        const batch: Promise<void> = this.writeBatch(tenantId, { drafts, waiters, writes, drain, ticket: ++this.tickets }).finally(() => inFlight.delete(batch));
        inFlight.add(batch);
      }
    } finally {
      this.flushing.delete(tenantId);
      const q = this.queues.get(tenantId);
      // Work that came in after the loop's last look starts a new flush; writes still waiting after a failed batch
      // keep the queue until the retry drains it.
      if (q && (q.drafts.length || q.writes.length || q.drain)) void this.flush(tenantId);
      else if (q && !q.chain.size) this.queues.delete(tenantId);
    }
  }

  /**
   * One batch: written, or its failed calls' events kept without details; settles every waiter, never throws.
   * Writes waiting before the batch began (`ticket`) are settled by it: their events were committed before it
   * read the queue, so they are now chained, by it or by a chainer before it.
   */
  private async writeBatch(tenantId: number, batch: { drafts: AuditDraft[]; waiters: Waiter[]; writes: AuditEventToChain[]; drain: boolean; ticket: number }): Promise<void> {
    const { drafts, waiters, writes, drain, ticket } = batch;
    const q = this.queueOf(tenantId);
    try {
      const { dequeued, full, sawQueue } = await this.writeAlone(tenantId, drafts, writes, drain);
      auditBatchSize.observe(drafts.length + dequeued.size);
      for (const w of waiters) w.resolve();
      for (const c of q.chain) {
        for (const u of c.uuids) if (dequeued.has(u)) c.uuids.delete(u);
        if (c.uuids.size === 0 || (sawQueue && !full && c.ticket < ticket)) {
          q.chain.delete(c);
          c.resolve();
        }
      }
      if (full) q.drain = true;
    } catch (err) {
      if (isTenantGone(err)) {
        this.forgetTenant(tenantId, waiters);
        return;
      }
      this.log.error({ err: { type: (err as Error).name, message: (err as Error).message }, tenantId }, 'audit batch failed');
      this.linker.cutOrFailed(tenantId, err);
      // Writes' events stay queued, committed with their writes: those writes are answered, and a later batch chains
      // the events (retried here in a second, and by the sweeper's drain of every tenant).
      for (const c of q.chain) {
        if (c.ticket < ticket) {
          q.chain.delete(c);
          c.resolve();
        }
      }
      this.retryLater(tenantId);
      // A trail cut short or broken refuses every event until it is repaired: its calls say so, as an outage (503);
      // any other failure is a retryable 503 too, never a 500.
      await this.keepFailures(tenantId, drafts, waiters, auditFailure(err));
    }
  }

  /**
   * The tenant was deleted under its queue (TenantDelete drops its schema, trail and all): nothing is left to chain
   * to. Calls still waiting for their events answer as calls on a missing tenant do; writes already answered are
   * let go; nothing is retried.
   */
  private forgetTenant(tenantId: number, waiters: Waiter[]): void {
    const q = this.queues.get(tenantId);
    for (const w of [...waiters, ...(q?.waiters ?? [])]) w.reject(notFound(Messages.tenantNotFound));
    for (const c of q?.chain ?? []) c.resolve();
    this.queues.delete(tenantId);
    this.heads.delete(tenantId);
    clearTimeout(this.retries.get(tenantId));
    this.retries.delete(tenantId);
  }

  private retryLater(tenantId: number): void {
    if (this.retries.has(tenantId)) return;
    const t = setTimeout(() => {
      this.retries.delete(tenantId);
      this.drain(tenantId);
    }, 1000);
    t.unref();
    this.retries.set(tenantId, t);
  }

  /**
   * A batch that could not be written: the events of failed calls are written again without their details (the
   * tokenizer that seals them may be what failed), so a failed call still leaves a trace. First, they and those of
   * calls answered all the same (QUEUED_WHEN_UNLINKED) are queued durably, as a write's, for a later batch (a trail
   * cut or broken links nothing until repaired: they are not lost meanwhile). The rest fail with `err`.
   */
  private async keepFailures(tenantId: number, drafts: AuditDraft[], waiters: Waiter[], err: unknown): Promise<void> {
    const queued = new Set(drafts.flatMap((d, i) => (d.status === 'error' || QUEUED_WHEN_UNLINKED.has(d.title) ? [i] : [])));
    if (queued.size) {
      const events = [...queued].map((i) => drafts[i]!);
      await this.db.write(tenantId, false, (tx) => this.writeInTx(tx, events, { commit: true })).catch(() => queued.clear());
    }
    const kept = new Set(drafts.flatMap((d, i) => (d.status === 'error' && d.details && !queued.has(i) ? [i] : [])));
    if (kept.size) {
      const bare = [...kept].map((i) => ({ ...drafts[i]!, details: null, msg: `${drafts[i]!.msg ?? ''} (details not sealed)`.trim() }));
      try {
        await this.writeAlone(tenantId, bare);
      } catch {
        kept.clear();
      }
    }
    waiters.forEach((w, i) => (kept.has(i) || queued.has(i) ? w.resolve() : w.reject(err)));
  }

  /** A call refused for its credential, recorded within a budget (refusals.ts). */
  recordRefusal(tenantId: number, operation: string, reason: string, request: { address: string; requestId: string | null }): Promise<void> {
    return this.refusals.record(tenantId, operation, reason, request);
  }
}
