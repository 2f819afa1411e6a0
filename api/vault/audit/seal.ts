// An audit event's details sealed by the tokenizer (under its person's key, or the tenant's own), and for a write's
// events the MAC the tokenizer makes of each in the same call (tokenizer/audit-queue.ts): the chainer's link call
// checks it before linking a queued event.
import type { Stores } from '../../store/stores.js';
import { TokenizerRejectedError, type TokenizerClient } from '../../tokenizer-client.js';
import type { SubjectKeys } from '../subject-keys.js';
import { AUDIT_TABLE, canonical, canonicalHead, type AuditDraft, type AuditEventToChain } from './note.js';
import type { AuditRun } from '../../tokenizer-batch.js';
import { canonicalText } from '../../../proto/audit-checkpoint.js';
import type { Prelink } from './prelink.js';

export interface SealOptions {
  /** Where persons' keys are read (the write's transaction, or the tenant's statements). */
  stores: Stores;
  drafts: AuditDraft[];
  /** Keys the operation already read, by person. */
  known?: ReadonlyMap<string, Buffer | null> | undefined;
  /** A write's events, to be queued: each gets its MAC. */
  mac?: boolean;
  /**
   * A read's event (one draft): the run that links it, for its text (its head, when its details are sealed in the
   * same message: then `sealedAs` is its uuid, else empty). Its links are answered with the event.
   */
  link?: ((text: string, sealedAs: string) => AuditRun) | undefined;
}

/** The drafts sealed, and the text `link`'s run linked with its links (when the tokenizer joined the details). */
export interface SealedAndLinked {
  events: AuditEventToChain[];
  linked?: { text: string; links: Buffer[] } | undefined;
}

/**
 * The drafts with their details sealed (read keys through `stores`). With `mac` (a write's events, to be queued), the
 * same tokenizer call also answers each event's MAC, which the chainer's link call checks.
 */
export async function sealEvents(tokenizer: TokenizerClient, subjectKeys: SubjectKeys, opts: SealOptions): Promise<AuditEventToChain[]> {
  return (await sealAndLink(tokenizer, subjectKeys, opts)).events;
}

/** What an event says in place of its details when its person's key does not open (UnkeyedDetailsError). */
export const UNKEYED_DETAILS_MSG = 'details not kept: the person\'s key does not open (altered in the database)';

/** One event of a batch whose person's wrapped key the tokenizer will not unwrap (a database writer swapped it). */
class UnkeyedDetailsError extends Error {
  constructor(readonly draft: AuditDraft) {
    super('an audit event\'s person key does not unwrap');
  }
}

/**
 * As `sealEvents`, and with `opts.link` the read's link made in the same tokenizer message. An event of a batch (not
 * a lone read's) whose person's key does not unwrap is recorded without its details, saying so, and the batch goes
 * on: one person's altered key row fails nobody else's call.
 */
export async function sealAndLink(tokenizer: TokenizerClient, subjectKeys: SubjectKeys, opts: SealOptions): Promise<SealedAndLinked> {
  try {
    return await sealOnce(tokenizer, subjectKeys, opts);
  } catch (err) {
    if (!(err instanceof UnkeyedDetailsError)) throw err;
    const drafts = opts.drafts.map((d) => (d === err.draft ? { ...d, details: null, msg: UNKEYED_DETAILS_MSG } : d));
    return sealAndLink(tokenizer, subjectKeys, { ...opts, drafts });
  }
}

async function sealOnce(tokenizer: TokenizerClient, subjectKeys: SubjectKeys, opts: SealOptions): Promise<SealedAndLinked> {
  const { stores, drafts, known, mac = false, link } = opts;
  const { tenantId } = stores;
  // Details of an event about a person are theirs: sealed under their key, they stop opening once the person is
  // erased. Those of a person erased by this very call are dropped (the key is already gone). Keys the operation
  // already read (`known`) are not read again.
  const records = [...new Set(drafts.filter((d) => d.details && d.record).map((d) => d.record!))];
  const keys = new Map<string, Buffer | null>(records.filter((r) => known?.has(r)).map((r) => [r, known!.get(r)!] as const));
  const missing = records.filter((r) => !keys.has(r));
  if (missing.length) for (const [t, w] of await stores.subjectKeys.get(missing)) keys.set(t, w);
  const withDetails = drafts.filter((d) => d.details && !(d.record && keys.get(d.record) === null));
  // Details about no person go under the tenant's own data key.
  const tenantKey = withDetails.some((d) => !(d.record && keys.get(d.record))) ? await subjectKeys.tenantKey(tenantId) : undefined;
  if (!withDetails.length && !mac) return { events: drafts.map((d) => ({ ...d, details: null })) };
  const lone = link && drafts.length === 1 ? drafts[0]! : undefined;
  const sealsIt = lone !== undefined && withDetails.includes(lone);
  const text = lone && (sealsIt ? canonicalHead(lone) : canonical({ ...lone, details: null }));
  const run = lone && link!(text!, sealsIt ? lone.uuid : '');
  const { sealed, queue_macs: macs, chained } = await tokenizer.run(tenantId, {
    seal: withDetails.map((d) => {
      const wrapped = d.record ? keys.get(d.record) : undefined;
      return {
        table: AUDIT_TABLE,
        rowId: d.uuid,
        plaintext: Buffer.from(JSON.stringify(d.details)),
        key: wrapped ? { subject: d.record!, wrapped } : tenantKey,
      };
    }),
    // Each event's details are the seal item of the same uuid (or none): the MAC covers them as sealed.
    queueMac: mac ? drafts.map((d) => ({ uuid: d.uuid, head: canonicalHead(d), details: null })) : [],
    ...(run ? { chain: [run] } : {}),
  }).catch((err: unknown) => {
    const unkeyed = run ? undefined : unkeyedItem(err);
    return Promise.reject(unkeyed !== undefined && withDetails[unkeyed] ? new UnkeyedDetailsError(withDetails[unkeyed]) : err);
  });
  const sealedBy = new Map(withDetails.map((d, i) => [d.uuid, sealed[i]!]));
  const events = drafts.map((d, i) => ({ ...d, details: sealedBy.get(d.uuid) ?? null, ...(mac ? { mac: macs[i]! } : {}) }));
  // A tokenizer before details_sealed_as links the head alone: those links are not the event's, and are left.
  const joined = run && (!sealsIt || chained[0]?.details_joined === true);
  if (!joined) return { events };
  return { events, linked: { text: sealsIt ? canonicalText(text!, sealedBy.get(lone!.uuid)!) : text!, links: chained[0]!.links } };
}

/** What a read's call readied for its event before it ended: its details sealed ahead, or the keys it read. */
export interface ReadiedEvent {
  sealed?: AuditEventToChain | undefined;
  /** Its link, made in the same message from the head the trail was at (`Prelinks`), and the text linked. */
  prelink?: Prelink | undefined;
  known?: ReadonlyMap<string, Buffer | null> | undefined;
}

/**
 * A batch's drafts sealed: those sealed ahead by their call as they are, the others in one tokenizer call with the
 * person keys their calls read (a key read in the call that named the person is not read again for its event).
 */
export async function sealReadied(
  tokenizer: TokenizerClient,
  subjectKeys: SubjectKeys,
  stores: Stores,
  drafts: AuditDraft[],
  readied: WeakMap<AuditDraft, ReadiedEvent>,
): Promise<AuditEventToChain[]> {
  const ahead = drafts.map((d) => readied.get(d)?.sealed);
  const rest = drafts.filter((_, i) => !ahead[i]);
  const known = new Map<string, Buffer | null>();
  for (const d of rest) {
    const key = d.record === null ? undefined : readied.get(d)?.known?.get(d.record);
    if (key !== undefined) known.set(d.record!, key);
  }
  const sealed = rest.length ? await sealEvents(tokenizer, subjectKeys, { stores, drafts: rest, known }) : [];
  let next = 0;
  return ahead.map((a) => a ?? sealed[next++]!);
}

/** The seal item the tokenizer refused because its person's wrapped key does not unwrap, if that was the refusal. */
function unkeyedItem(err: unknown): number | undefined {
  if (!(err instanceof TokenizerRejectedError)) return undefined;
  const m = /^seal\[(\d+)\]: the wrapped key does not unwrap/.exec(err.reason);
  return m ? Number(m[1]) : undefined;
}
