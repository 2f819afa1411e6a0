// An audit event as drafted, its canonical text (what its link, digest and queue MAC cover) and how it is shown.
import type { AuditEventRow } from '../../store/audit.js';
import { createHash, randomUUID } from 'node:crypto';
import { canonicalText } from '../../../proto/audit-checkpoint.js';
import { mergePatchBack, mergePatchBetween, mergedCopy } from '../merge-patch.js';
import { actorText, anonymousActorText, purposeOf, whoOf, type Actor, type Who } from './actor.js';

/** What an operation tells its event. `identity`, `before` and `after` are PII and are sealed. */
export interface AuditNote {
  record?: string;
  mode?: string;
  identity?: string;
  app?: string;
  before?: unknown;
  after?: unknown;
  /**
   * The kept version that holds `before` (sealed under the same key as the details): the event then names it and
   * carries only what changed, both ways, instead of a second sealed copy of `before`.
   */
  beforeKept?: number;
  /** The person's request an approval acts on (its uuid, type and status): named beside a change's profiles. */
  request?: { requestuuid: string; requesttype: string; status: string };
}

/** An event before it is stored: its details still in the clear (they are sealed on the way in). */
export type AuditDraft = Omit<AuditEventRow, 'seq' | 'hash' | 'digest' | 'details'> & { details: Record<string, unknown> | null };

/** An event sealed and ready to be linked into the chain; a write's (queued) carries the tokenizer's MAC of it. */
export type AuditEventToChain = Omit<AuditEventRow, 'seq' | 'hash' | 'digest'> & { mac?: Buffer | null };

export const AUDIT_TABLE = 'audit_events';

/**
 * Where the sealed details of an event with a `before` keep its `after` as the merge patch from it (RFC 7396): the
 * document is not stored twice. The reader gives `after` whole (`openedDetails`).
 */
export const AFTER_AS_CHANGE = 'afterchange';

/**
 * Where the details of a change whose `before` is a kept version name it (its number, and the SHA-256 of its JSON
 * text) and keep, beside `afterchange`, the merge patch back from `after` to `before`: what every changed field
 * held. While the version is kept the event is shown whole; once it is pruned, what changed still is.
 */
export const BEFORE_VERSION = 'beforeversion';
export const BEFORE_SHA256 = 'beforesha256';
export const BEFORE_AS_CHANGE = 'beforechange';
/** How a kept `before` was found when the event was shown without it. */
export const BEFORE_STATE = 'beforestate';

/** The SHA-256 a change's event names its kept `before` by: of the document's JSON text, hex. */
export function keptDigest(document: unknown): string {
  return createHash('sha256').update(JSON.stringify(document)).digest('hex');
}

/** The version a change's sealed details name as their `before`, when they name one. */
export function keptBeforeOf(details: Record<string, unknown>): number | undefined {
  const v = details[BEFORE_VERSION];
  return Object.hasOwn(details, BEFORE_VERSION) && Number.isSafeInteger(v) ? (v as number) : undefined;
}

/** The kept version a change's details name, as found: its document, or why there is none to show. */
export type KeptBefore = { document: unknown } | 'pruned' | 'altered';

/**
 * Details as sealed, as they are shown: `after` made whole again from `before` and the change. Details that name a
 * kept `before` are given what became of the version: not kept any more, or not the document the event named (it
 * does not open, or its digest differs), they show what changed, both ways, and why `before` is missing.
 */
export function openedDetails(details: Record<string, unknown>, kept: KeptBefore = 'pruned'): Record<string, unknown> {
  if (keptBeforeOf(details) !== undefined) {
    const { [BEFORE_SHA256]: digest, [BEFORE_AS_CHANGE]: back, [AFTER_AS_CHANGE]: change, ...rest } = details;
    const state = typeof kept === 'string' ? kept : keptDigest(kept.document) === digest ? undefined : 'altered';
    // A failed change's event keeps no way back: what it tried is all it shows once its version is gone.
    if (state !== undefined || typeof kept === 'string') return { ...rest, [BEFORE_STATE]: state, ...(back === undefined ? {} : { [BEFORE_AS_CHANGE]: back }), [AFTER_AS_CHANGE]: change };
    return { ...rest, before: kept.document, after: mergedCopy(kept.document, change) };
  }
  if (!Object.hasOwn(details, AFTER_AS_CHANGE)) return details;
  const { [AFTER_AS_CHANGE]: change, ...rest } = details;
  return { ...rest, after: mergedCopy(rest.before, change) };
}

/** The most of an event's clear message kept. */
const MSG_CHARS = 256;

/** The clear message of a refused request (400): what it echoed of the request is in the sealed details. */
export const BAD_REQUEST_MSG = 'Bad request (the message is in the event\'s sealed details)';

/**
 * Calls answered even when their event cannot be linked now (a trail cut or broken links nothing until repaired):
 * their event is queued durably instead, as a write's is, and chained by a later batch (failed calls' events too, which
 * keep their own answer). AuditVerify is how an admin learns that the trail is broken: its verdict must reach them.
 */
export const QUEUED_WHEN_UNLINKED = new Set(['AuditVerify']);

/**
 * The event of a call by `actor`. The client's address is kept in the details (sealed under the person's key, or the
 * tenant's own); the rest of who called is the `actor` text (actor.ts), which the chain covers as it always has.
 */
export function draftEvent(
  title: string,
  actor: Actor,
  note: AuditNote,
  outcome: { status: 'ok' | 'error'; msg?: string; sealedMsg?: string },
  when: { now: number; requestMetadata?: unknown },
): AuditDraft {
  const { now, requestMetadata } = when;
  const details: Record<string, unknown> = {};
  // The record token names the subject; the identity used to look it up is kept only when nothing was found.
  if (note.identity !== undefined && (note.record === undefined || outcome.status === 'error')) details.identity = note.identity;
  // After a change of a document, only what changed: `after` is made again from `before` when the event is read.
  const change = note.before === undefined || note.after === undefined ? undefined : mergePatchBetween(note.before, note.after);
  // And a `before` a kept version holds is named, not sealed again: the way back is kept for when it is pruned. A
  // change that failed changed nothing: the version it names is the one the profile stayed at (live, and kept by the
  // next change), and it keeps only what it tried, so a failing call costs the trail what it sent, not the profile.
  const kept = note.beforeKept;
  const failed = outcome.status !== 'ok';
  const back = change === undefined || kept === undefined || failed ? undefined : mergePatchBack(note.before as Record<string, unknown>, change);
  if (kept !== undefined && change !== undefined && (failed || back !== undefined)) {
    details[BEFORE_VERSION] = kept;
    details[BEFORE_SHA256] = keptDigest(note.before);
    if (back !== undefined) details[BEFORE_AS_CHANGE] = back;
  } else if (note.before !== undefined) details.before = note.before;
  if (change !== undefined) details[AFTER_AS_CHANGE] = change;
  else if (note.after !== undefined) details.after = note.after;
  if (note.request !== undefined) details.request = note.request;
  if (requestMetadata !== undefined) details.request_metadata = requestMetadata;
  if (actor.request.address) details.address = actor.request.address;
  // A message that may echo what the caller sent (a path, a field name, a value) is kept sealed, with the details.
  if (outcome.sealedMsg !== undefined) details.message = outcome.sealedMsg;
  // A call that named a person (found or not) reached for their data: never housekeeping, whatever it said.
  const namesSomeone = note.record !== undefined || note.identity !== undefined || note.mode !== undefined;
  return {
    uuid: randomUUID(),
    when: now,
    title,
    status: outcome.status,
    // The clear message is the vault's own words; bounded, whatever made it.
    msg: outcome.msg === undefined ? null : outcome.msg.slice(0, MSG_CHARS),
    actor: actorText(actor, purposeOf(actor, namesSomeone)),
    record: note.record ?? null,
    mode: note.mode ?? null,
    app: note.app ?? null,
    details: Object.keys(details).length ? details : null,
  };
}

/** The canonical text's nine fields before the details, as a JSON array (what a queued event's MAC is asked with). */
export function canonicalHead(e: Omit<AuditDraft, 'details'>): string {
  return JSON.stringify([e.uuid, e.when, e.title, e.status, e.msg, e.actor, e.record, e.mode, e.app]);
}

/** The text each chain link covers besides the sequence number: every stored field, in a fixed order. */
export function canonical(e: Omit<AuditDraft, 'details'> & { details: Buffer | null }): string {
  return canonicalText(canonicalHead(e), e.details);
}

export interface AuditRow {
  auditeventuuid: string;
  eventtype: string;
  title: string;
  timestamp: string;
  when: number;
  status: string;
  msg: string | null;
  mode: string | null;
  record: string | null;
  app: string | null;
  more: boolean;
  who: Who;
}

export function presentEvent(e: AuditEventRow): AuditRow {
  return {
    auditeventuuid: e.uuid,
    eventtype: e.title,
    title: e.title,
    timestamp: new Date(e.when * 1000).toISOString(),
    when: e.when,
    status: e.status,
    msg: e.msg,
    mode: e.mode,
    record: e.record,
    app: e.app,
    more: Boolean(e.details),
    who: whoOf(e.actor),
  };
}

/** The event of a call refused for its credential: the operation, the reason, and the client's address (sealed). */
export function refusalDraft(operation: string, reason: string, request: { address: string; requestId: string | null }, now: number): AuditDraft {
  const { address, requestId } = request;
  return {
    uuid: randomUUID(),
    when: Math.floor(now / 1000),
    title: operation,
    status: 'error',
    msg: `Access denied: ${reason}`,
    actor: anonymousActorText('unauthenticated', requestId),
    record: null,
    mode: null,
    app: null,
    details: { address },
  };
}

/** A token bucket: `perSecond` a second, a burst of as many. */
export class RefusalBudget {
  private tokens: number;
  private at = Date.now();

  constructor(private readonly perSecond: number) {
    this.tokens = perSecond;
  }

  /** Whether one more fits now (and takes it). */
  take(now: number): boolean {
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Takes the next turn of a tenant in `turns`: `wait` settles when the one before is done (it never rejects). */
export function takeTurn(turns: Map<number, Promise<void>>, tenantId: number): { wait: Promise<void> | undefined; done: () => void } {
  const wait = turns.get(tenantId);
  let resolve!: () => void;
  const mine = new Promise<void>((r) => (resolve = r));
  turns.set(tenantId, mine);
  return {
    wait,
    done: () => {
      resolve();
      if (turns.get(tenantId) === mine) turns.delete(tenantId);
    },
  };
}

/** A read's or failed call's event waiting to be committed. */
export interface Waiter {
  resolve(): void;
  reject(e: unknown): void;
}

/** A write waiting for its queued events to be chained: resolved by uuid, or by a batch that began after it. */
export interface ChainWaiter {
  uuids: Set<string>;
  ticket: number;
  resolve(): void;
}

/** A tenant's work for the chainer: reads' and failed calls' drafts, and writes waiting on their queued events. */
export interface TenantQueue {
  drafts: AuditDraft[];
  waiters: Waiter[];
  chain: Set<ChainWaiter>;
  /** Queued events of this process's committed writes not yet in a batch (also in the database's queue). */
  writes: AuditEventToChain[];
  /** The next batch must read the database's queue under the head's lock (a drain, or the last batch was full). */
  drain: boolean;
}
