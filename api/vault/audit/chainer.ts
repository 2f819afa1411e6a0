// The audit chainer's link call and what rides on it: queued events' MACs checked by the tokenizer (refused ones
// left out), and the newest committed head, which the tokenizer keeps and never lets a trail go back behind (a trail
// cut short is refused). Per tenant, the head last committed here is told to the tokenizer by the next link call, or
// by a small call of its own once none came for a moment.
import type { Logger } from 'pino';
import type { AuditAppend, AuditHead, QueuedLink } from '../../store/audit.js';
import type { DigestForm } from '../../store/schema-version.js';
import { TokenizerRejectedError, type TokenizerClient } from '../../tokenizer-client.js';
import type { AuditRun } from '../../tokenizer-batch.js';
import { auditDigestFirstForm, detailsDigest, digestOfLeaf, followingDigest, leafOfDigest } from '../../../proto/audit-checkpoint.js';
import { canonical, canonicalHead, type AuditEventToChain } from './note.js';
import { UnavailableError, VaultError } from '../../errors.js';

/**
 * How long after a batch's commit the tokenizer is told its head, unless a link call carried it meanwhile: until then
 * only this process's memory holds it (an api killed in that moment leaves the event cuttable unseen). Under load the
 * next link call carries it first, so reports are sent only once a tenant's calls pause. A report is its own message,
 * beside the merged calls (it never makes a lone read wait, nor cost it its prelink).
 */
const REPORT_AFTER_MS = 20;
/** A report that failed (the tokenizer restarting), or one the tokenizer did not keep, is sent again after this. */
const REPORT_AGAIN_MS = 250;
/** How long after a report the tokenizer is asked what it kept: after its save (100 ms, tokenizer/audit-heads.ts). */
const CONFIRM_AFTER_MS = 150;
/** How many times in a row a head the tokenizer did not keep is told again before waiting for the next append. */
const CONFIRM_TRIES = 5;

/** A batch as linked: queued events kept (by uuid) and the others whole, each with its link and digest; the refused. */
export interface Linked {
  queued: QueuedLink[];
  others: AuditAppend[];
  /** Queued events the tokenizer would not link (their MAC does not hold): never in the chain. */
  refused: string[];
  /** The head once the batch is appended (the head it was linked from when nothing is left to append). */
  head: AuditHead;
}

/** An event as appended with its data: without the MAC it was queued with (not stored in the chain). */
function withoutMac(e: AuditEventToChain): Omit<AuditEventToChain, 'mac'> {
  const { mac: _mac, ...event } = e;
  return event;
}

/**
 * Whether a head read from the database has the digest its event's row states, and that digest follows from the
 * event before (the public chain, which anyone can recompute). Nothing to recompute from: a legacy event's.
 */
export function digestHolds(head: AuditHead): boolean {
  if (head.seq < 1) return head.digest.length === 0;
  const d = head.proof?.digests;
  if (!head.proof || !d?.own) return true;
  if (!head.digest.equals(d.own)) return false;
  if (d.previous === null && head.seq > 1) return true;
  return followingDigest(d.previous ?? Buffer.alloc(0), head.seq, canonical(head.proof.event), d.own).equals(d.own);
}

/** The tokenizer's refusal to link from a head older than one it knows committed. */
export function isCut(err: unknown): boolean {
  return err instanceof TokenizerRejectedError && /audit trail was cut/.test(err.reason);
}

/** The tokenizer's refusal to link from a head whose link it cannot recompute (forged in the database). */
export function isBroken(err: unknown): boolean {
  return err instanceof TokenizerRejectedError && /audit trail is broken/.test(err.reason);
}

/** The database's refusal of a row already there: an event's uuid chained already, or its place taken. */
export function isDuplicate(err: unknown, constraint?: string): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * What a call whose event could not be linked is answered: never a 500. A trail cut or broken (a link forged, events
 * stored past the head) says so, until it is repaired; a head locked too long or anything else is a retryable outage.
 */
export function auditFailure(err: unknown): VaultError {
  const until = 'no event is linked until it is repaired';
  if (isCut(err)) return new UnavailableError(`The audit trail of this tenant was cut short: ${until}`);
  if (isBroken(err)) return new UnavailableError(`The audit trail of this tenant is broken: its head is not a link of this tenant; ${until}`);
  if (isDuplicate(err, 'audit_events_pkey')) return new UnavailableError(`The audit trail of this tenant is broken: events are stored past its head; ${until}`);
  if (err instanceof VaultError) return err;
  if ((err as { code?: unknown } | null)?.code === '55P03') return new UnavailableError('The audit trail of this tenant is busy (its head is locked elsewhere): try again');
  return new UnavailableError('The audit trail of this tenant is unavailable for now: try again');
}

/** The chainer's link calls, per tenant: what the tokenizer is told committed, and when. */
export class AuditLinker {
  /** Per tenant, the newest head this process appended or read under the lock: committed. */
  private readonly committed = new Map<number, AuditHead>();
  /** Committed heads no link call has told the tokenizer yet, and the timers that will. */
  private readonly unreported = new Map<number, AuditHead>();
  private readonly reporting = new Map<number, NodeJS.Timeout>();
  /** After a report, the timers that ask the tokenizer what it kept, and how often in a row it had not. */
  private readonly confirming = new Map<number, NodeJS.Timeout>();
  private readonly misses = new Map<number, number>();
  private closed = false;

  constructor(
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly form: DigestForm,
  ) {}

  /** A head read under the lock that the tokenizer linked from: committed (the tokenizer may not know it: it restarted). */
  private headRead(tenantId: number, head: AuditHead): void {
    const known = this.committed.get(tenantId);
    if (!known || known.seq < head.seq) this.committed.set(tenantId, head);
  }

  /** The newest head this process appended or saw linked: a trail that ends before it was cut, whatever the tokenizer knows. */
  committedSeq(tenantId: number): number {
    return this.committed.get(tenantId)?.seq ?? 0;
  }

  /** A batch committed: its head is the newest committed, told to the tokenizer by the next link call or soon. */
  appended(tenantId: number, head: AuditHead): void {
    this.committed.set(tenantId, head);
    this.misses.delete(tenantId);
    this.reportLater(tenantId);
  }

  /**
   * The links the tokenizer makes from `head` for `queued` (their MACs checked first: a refused one is left out) then
   * `rows`, with their public digests. The newest head known committed rides along: the tokenizer remembers it, and
   * refuses to link from a head older than the newest it knows (a trail cut short). With `read`, `head` was read under
   * the lock: it rides as committed, and is remembered as such only once the tokenizer has linked from it (a head
   * forged in the database is refused, and must not be taken for the trail's committed end once it is removed).
   */
  async link(tenantId: number, head: AuditHead, events: { queued: readonly AuditEventToChain[]; rows: readonly AuditEventToChain[] }, read = false): Promise<Linked> {
    const { queued, rows } = events;
    const all = [...queued, ...rows];
    if (!all.length) return { queued: [], others: [], refused: [], head };
    // Its public digest is the api's to check (the tokenizer vouches for links only): one edited is not linked onto.
    if (read && !digestHolds(head)) throw new UnavailableError('The audit trail of this tenant is broken: its head\'s digest is not its event\'s; no event is linked until it is repaired');
    const texts = all.map(canonical);
    // Through Run: the link call rides with the opens and seals of the same turn.
    const run = this.runFrom(tenantId, head, texts, { queueMac: queued.map((q) => q.mac ?? Buffer.alloc(0)), read });
    const { links, refused } = await this.tokenizer.chainInRun(tenantId, run);
    if (read) this.headRead(tenantId, head);
    return this.linkedFrom(head, { queuedCount: queued.length, all, texts }, { links, refused });
  }

  /**
   * The link call's run from `head` for `texts` (the first `queueMac.length` queued, with their MACs). The newest head
   * known committed rides along: the tokenizer remembers it, and refuses to link from a head older than the newest it
   * knows (a trail cut short).
   */
  runFrom(tenantId: number, head: AuditHead, texts: string[], opts: { queueMac?: Buffer[]; detailsSealedAs?: string[]; read?: boolean } = {}): AuditRun {
    const { queueMac = [], detailsSealedAs, read = false } = opts;
    let committed = this.committed.get(tenantId);
    if (committed) this.unreported.delete(tenantId);
    if (read && (!committed || committed.seq < head.seq)) committed = head;
    return {
      previous: head.hash,
      firstSeq: head.seq + 1,
      canonical: texts,
      queueMac,
      committed: committed && { seq: committed.seq, link: committed.hash },
      // What proves the head's link to a tokenizer that did not make it (another replica's, or one restarted).
      proof: head.proof && { canonical: canonical(head.proof.event), previous: head.proof.previous, legacy: head.proof.legacy },
      ...(detailsSealedAs ? { detailsSealedAs } : {}),
    };
  }

  /** The batch of `all` (the first `queuedCount` queued, `texts` their canonical texts) as the tokenizer linked it from `head`. */
  linkedFrom(
    head: AuditHead,
    { queuedCount, all, texts }: { queuedCount: number; all: readonly AuditEventToChain[]; texts: readonly string[] },
    { links, refused }: { links: readonly Buffer[]; refused: readonly number[] },
  ): Linked {
    const gone = new Set(refused);
    const kept = all.flatMap((e, i) => (gone.has(i) ? [] : [{ e, text: texts[i]!, queued: i < queuedCount }]));
    let digest = head.digest;
    // The leaf from the event's own fields and details (the same as from its canonical text, without decoding it);
    // the first form while an older release may run beside this one (store/schema-version.ts, LEAF_FORM_FLOOR).
    const leaf = this.form.leaf;
    const next = (k: (typeof kept)[number], seq: number) =>
      leaf ? digestOfLeaf(digest, seq, leafOfDigest(canonicalHead(k.e), detailsDigest(k.e.details))) : auditDigestFirstForm(digest, seq, k.text);
    const chained = kept.map((k, i) => ({ ...k, hash: links[i]!, digest: (digest = next(k, head.seq + 1 + i)) }));
    const last = chained.at(-1);
    return {
      queued: chained.filter((c) => c.queued).map((c) => ({ uuid: c.e.uuid, hash: c.hash, digest: c.digest })),
      others: chained.filter((c) => !c.queued).map((c) => ({ ...withoutMac(c.e), hash: c.hash, digest: c.digest })),
      refused: all.slice(0, queuedCount).filter((_, i) => gone.has(i)).map((q) => q.uuid),
      head: last ? { seq: head.seq + chained.length, hash: last.hash, digest: last.digest, proof: { event: withoutMac(last.e), previous: chained.at(-2)?.hash ?? head.hash } } : head,
    };
  }

  /**
   * Tells the tokenizer a tenant's committed head once no batch has carried it for a moment: under load every link
   * call carries it (no call of its own); after the last batch, one small Run does, so that the tokenizer knows the
   * newest head before a restart. Then, once the tokenizer has had time to save it, asks it what it kept: a tokenizer
   * restarted meanwhile (killed before its save, or given a head it could not vouch for) is told again.
   */
  private reportLater(tenantId: number, afterMs = REPORT_AFTER_MS): void {
    const committed = this.committed.get(tenantId);
    if (committed) this.unreported.set(tenantId, committed);
    if (this.reporting.has(tenantId)) return;
    const t = setTimeout(() => {
      this.reporting.delete(tenantId);
      // Confirmed whether this report or a link call told it: a restarted tokenizer may have kept neither.
      void this.reportNow(tenantId).then(() => this.confirmLater(tenantId));
    }, afterMs);
    t.unref();
    this.reporting.set(tenantId, t);
  }

  /**
   * Tells the tokenizer now the tenant's committed head that no link call has carried yet (with `all`, the newest
   * committed here whatever was told): before AuditVerify reads the tokenizer's newest head, so that a trail cut in
   * the moment after an append is not found intact, and at a stop. The head's proof goes with it, so that a tokenizer
   * that did not link it (restarted) vouches for it. A report that fails is sent again later; answers whether it went.
   */
  async reportNow(tenantId: number, all = false): Promise<boolean> {
    const h = this.unreported.get(tenantId) ?? (all ? this.committed.get(tenantId) : undefined);
    if (!h) return false;
    this.unreported.delete(tenantId);
    const report = { ...this.runFrom(tenantId, h, []), committed: { seq: h.seq, link: h.hash } };
    try {
      await this.tokenizer.chainInRun(tenantId, report, true);
      return true;
    } catch (err) {
      this.cutOrFailed(tenantId, err);
      // The tokenizer gone (restarting): told again once it may be back, unless a link call carries it first.
      if (!isCut(err) && !isBroken(err) && !this.closed) this.reportLater(tenantId, REPORT_AGAIN_MS);
      return false;
    }
  }

  /** After a report: the tokenizer's newest head, once it has saved it; lower than the one told, it is told again. */
  private confirmLater(tenantId: number): void {
    const t = setTimeout(() => {
      this.confirming.delete(tenantId);
      void this.confirm(tenantId);
    }, CONFIRM_AFTER_MS);
    t.unref();
    clearTimeout(this.confirming.get(tenantId));
    this.confirming.set(tenantId, t);
  }

  private async confirm(tenantId: number): Promise<void> {
    const committed = this.committed.get(tenantId);
    if (!committed || this.closed) return;
    const known = await this.tokenizer.auditHighWater(tenantId).catch(() => undefined);
    if (known && known.seq >= committed.seq) {
      this.misses.delete(tenantId);
      return;
    }
    const misses = (this.misses.get(tenantId) ?? 0) + 1;
    this.misses.set(tenantId, misses);
    // A head it will not keep (no proof to vouch for it) is not sent for ever: the next append tries again.
    if (misses > CONFIRM_TRIES) this.log.warn({ tenantId, seq: committed.seq }, 'audit head not kept by the tokenizer: told again at the next append');
    else this.reportLater(tenantId, REPORT_AGAIN_MS);
  }

  /** At a stop: every tenant's newest head committed here, told to the tokenizer now (it may have lost one). */
  async reportAll(): Promise<void> {
    this.closed = true;
    for (const t of [...this.reporting.values(), ...this.confirming.values()]) clearTimeout(t);
    this.reporting.clear();
    this.confirming.clear();
    await Promise.all([...this.committed.keys()].map((tenantId) => this.reportNow(tenantId, true)));
  }

  /** A refused link or report that says the trail was cut is logged as such; anything else is retried later anyway. */
  cutOrFailed(tenantId: number, err: unknown): void {
    const message = (err as Error).message ?? '';
    if (/audit trail is broken/.test(message)) this.log.error({ tenantId, reason: message }, 'audit trail broken: the tokenizer refuses to link from a head it cannot recompute');
    if (/audit trail was cut/.test(message)) this.log.error({ tenantId, reason: message }, 'audit trail cut: the tokenizer refuses to link from a head older than one committed');
  }
}

/**
 * The database's refusal of a batch chained from a head that is no longer the head, or of events chained already, or
 * of a row already stored: the batch is linked again under the head's lock, from the queue as it stands.
 */
export function headMoved(err: unknown): boolean {
  return /audit head is at|chained already/.test((err as Error).message ?? '') || isDuplicate(err);
}
