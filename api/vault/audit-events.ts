// An audit event as drafted, its canonical text (what its link, digest and queue MAC cover) and how it is shown.
import type { AuditEventRow } from '../store/audit.js';
import type { Principal } from './credentials.js';
import { randomUUID } from 'node:crypto';
import { canonicalText } from '../../proto/audit-checkpoint.js';

/** What an operation tells its event. `identity`, `before` and `after` are PII and are sealed. */
export interface AuditNote {
  record?: string;
  mode?: string;
  identity?: string;
  app?: string;
  before?: unknown;
  after?: unknown;
}

/** An event before it is stored: its details still in the clear (they are sealed on the way in). */
export type AuditDraft = Omit<AuditEventRow, 'seq' | 'hash' | 'digest' | 'details'> & { details: Record<string, unknown> | null };

/** An event sealed and ready to be linked into the chain; a write's (queued) carries the tokenizer's MAC of it. */
export type AuditEventToChain = Omit<AuditEventRow, 'seq' | 'hash' | 'digest'> & { mac?: Buffer | null };

export const AUDIT_TABLE = 'audit_events';

export function draftEvent(
  title: string,
  principal: Principal,
  note: AuditNote,
  outcome: { status: 'ok' | 'error'; msg?: string },
  requestMetadata: unknown,
  now: number,
): AuditDraft {
  const details: Record<string, unknown> = {};
  // The record token names the subject; the identity used to look it up is kept only when nothing was found.
  if (note.identity !== undefined && (note.record === undefined || outcome.status === 'error')) details.identity = note.identity;
  if (note.before !== undefined) details.before = note.before;
  if (note.after !== undefined) details.after = note.after;
  if (requestMetadata !== undefined) details.request_metadata = requestMetadata;
  return {
    uuid: randomUUID(),
    when: now,
    title,
    status: outcome.status,
    msg: outcome.msg ?? null,
    actor: `${principal.kind}:${principal.credentialId}`,
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
  };
}
