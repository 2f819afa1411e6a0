// The audit trail as it leaves for a SIEM: one record per stored event or signed checkpoint, and the vault's own JSON
// line of it, which the offline verifier reads back (events and checkpoints from one file). Everything a record holds
// is what the trail stores in the clear, and of the sealed details only their SHA-256 (which the digest chain covers),
// so the copy is verifiable and no wider. Events chained before leaves (the first form) carry their sealed bytes too.
import type { AuditEventRow } from '../../../store/audit.js';
import { detailsDigest, type CheckpointLine } from '../../../../proto/audit-checkpoint.js';

/** A stored event as exported. `detailsdigest` is the SHA-256 of the sealed details; it, `link` and `digest` are hex. */
export interface EventRecord {
  kind: 'event';
  tenant: number;
  seq: number;
  uuid: string;
  when: number;
  title: string;
  status: 'ok' | 'error';
  msg: string | null;
  actor: string;
  record: string | null;
  mode: string | null;
  app: string | null;
  /** The SHA-256 of the sealed details, hex; null when the event has none. */
  detailsdigest: string | null;
  /**
   * Base64 of the sealed bytes, never opened: only for an event whose digest is of the first form (chained before
   * leaves, or a legacy event), which covers the bytes themselves.
   */
  details?: string | null;
  /** The keyed link, hex. */
  link: string;
  /** The public digest chain's value, hex; empty for a legacy event stored before the digest chain (no digest). */
  digest: string;
}

/** A signed checkpoint as exported, with its RFC 3161 token (base64 DER) when one was obtained. */
export interface CheckpointRecord {
  kind: 'checkpoint';
  /** Always the line's own tenant. */
  tenant: number;
  line: CheckpointLine;
  timestamp?: string;
}

/**
 * An event a sink's filter left out: its sequence number, time and digest only, so that the copy shows the gap and
 * the digest chain goes on across it; and its leaf (the hash of its canonical text with its details' hash), which
 * says nothing about it but lets a verifier recompute its digest, so events before it are still proven by a later
 * checkpoint. (No leaf for an event of the chain's first form.)
 */
export interface SkippedRecord {
  kind: 'skipped';
  tenant: number;
  seq: number;
  when: number;
  digest: string;
  leaf?: string;
}

/** One exported record: an event, an event left out, or a checkpoint. */
export type ExportRecord = EventRecord | SkippedRecord | CheckpointRecord;

/** The `type` of an event's JSON line (a checkpoint's is the checkpoint line's own, `strongroom.audit.checkpoint`). */
export const EVENT_TYPE = 'strongroom.audit.event';
const CHECKPOINT_TYPE = 'strongroom.audit.checkpoint';
/** The `type` of a left-out event's JSON line. */
export const SKIPPED_TYPE = 'strongroom.audit.skipped';

/** The stand-in of a stored event a sink's filter leaves out, with its leaf when it has one. */
export function skippedRecord(tenant: number, e: AuditEventRow, leaf?: Buffer): SkippedRecord {
  return { kind: 'skipped', tenant, seq: e.seq, when: e.when, digest: e.digest ? e.digest.toString('hex') : '', ...(leaf ? { leaf: leaf.toString('hex') } : {}) };
}

/** A skipped record checked field by field; null if any is wrong. */
export function validSkipped(v: Record<string, unknown>): SkippedRecord | null {
  if (!isInt(v.tenant) || !isInt(v.seq) || !isInt(v.when) || !isHex(v.digest)) return null;
  if (v.leaf !== undefined && !(isHex(v.leaf) && v.leaf.length === 64)) return null;
  return { kind: 'skipped', tenant: v.tenant, seq: v.seq, when: v.when, digest: v.digest, ...(v.leaf !== undefined ? { leaf: v.leaf } : {}) };
}

/**
 * The record of a stored event of tenant `tenant`: `detailsDigest` as read with it (else computed from its details),
 * and its details' bytes only `withDetails`.
 */
export function eventRecord(tenant: number, e: AuditEventRow, opts: { detailsDigest?: string | null; withDetails?: boolean } = {}): ExportRecord {
  return {
    kind: 'event',
    tenant,
    seq: e.seq,
    uuid: e.uuid,
    when: e.when,
    title: e.title,
    status: e.status,
    msg: e.msg,
    actor: e.actor,
    record: e.record,
    mode: e.mode,
    app: e.app,
    detailsdigest: opts.detailsDigest !== undefined ? opts.detailsDigest : detailsDigest(e.details),
    ...(opts.withDetails ? { details: e.details ? e.details.toString('base64') : null } : {}),
    link: e.hash.toString('hex'),
    digest: e.digest ? e.digest.toString('hex') : '',
  };
}

/** The record of a signed checkpoint line, with its RFC 3161 token (DER) when there is one. */
export function checkpointRecord(line: CheckpointLine, timestamp?: Buffer): ExportRecord {
  return { kind: 'checkpoint', tenant: line.tenant, line, ...(timestamp ? { timestamp: timestamp.toString('base64') } : {}) };
}

/** The stored row an event record was made from (what `canonical()` and the chains' checks take). */
export function eventRowOf(r: EventRecord): AuditEventRow {
  return {
    seq: r.seq,
    uuid: r.uuid,
    when: r.when,
    title: r.title,
    status: r.status,
    msg: r.msg,
    actor: r.actor,
    record: r.record,
    mode: r.mode,
    app: r.app,
    details: r.details ? Buffer.from(r.details, 'base64') : null,
    hash: Buffer.from(r.link, 'hex'),
    digest: r.digest ? Buffer.from(r.digest, 'hex') : null,
  };
}

/**
 * The vault's JSON line of a record: one line, keys in a fixed order. An event's line is typed
 * `strongroom.audit.event`; a checkpoint's is the checkpoint line itself (as in a checkpoint file, so
 * `parseCheckpoint` reads it too) plus `timestamp` when there is one.
 */
export function toJson(r: ExportRecord): string {
  // A record goes to every sink of its format in one pass: it is written once (records are not changed once made).
  let json = written.get(r);
  if (json === undefined) written.set(r, (json = jsonOf(r)));
  return json;
}

const written = new WeakMap<ExportRecord, string>();

function jsonOf(r: ExportRecord): string {
  if (r.kind === 'skipped') return JSON.stringify({ type: SKIPPED_TYPE, v: 1, tenant: r.tenant, seq: r.seq, when: r.when, digest: r.digest, ...(r.leaf !== undefined ? { leaf: r.leaf } : {}) });
  if (r.kind === 'checkpoint') {
    const l = r.line;
    const line = { type: l.type, v: l.v, tenant: l.tenant, seq: l.seq, link: l.link, digest: l.digest, time: l.time, signature: l.signature };
    return JSON.stringify(r.timestamp === undefined ? line : { ...line, timestamp: r.timestamp });
  }
  return JSON.stringify({
    type: EVENT_TYPE,
    v: 1,
    tenant: r.tenant,
    seq: r.seq,
    uuid: r.uuid,
    when: r.when,
    title: r.title,
    status: r.status,
    msg: r.msg,
    actor: r.actor,
    record: r.record,
    mode: r.mode,
    app: r.app,
    detailsdigest: r.detailsdigest,
    ...(r.details !== undefined ? { details: r.details } : {}),
    link: r.link,
    digest: r.digest,
  });
}

/** The record of a line written by `toJson`; null for any other line (keys added by a collector are ignored). */
export function parseJson(line: string): ExportRecord | null {
  try {
    return recordOf(JSON.parse(line));
  } catch {
    return null;
  }
}

/** The record of a parsed `toJson` object; null for anything else. */
export function recordOf(v: unknown): ExportRecord | null {
  if (!isObject(v) || v.v !== 1) return null;
  if (v.type === EVENT_TYPE) return validEvent(v);
  if (v.type === SKIPPED_TYPE) return validSkipped(v);
  if (v.type !== CHECKPOINT_TYPE) return null;
  return validCheckpoint(v, v.timestamp);
}

/** `v` as an event record, checked field by field (only the record's own fields are kept); null if any is wrong. */
export function validEvent(v: Record<string, unknown>): EventRecord | null {
  const ok =
    isInt(v.tenant) &&
    isInt(v.seq) &&
    typeof v.uuid === 'string' &&
    isInt(v.when) &&
    typeof v.title === 'string' &&
    (v.status === 'ok' || v.status === 'error') &&
    isText(v.msg) &&
    typeof v.actor === 'string' &&
    isText(v.record) &&
    isText(v.mode) &&
    isText(v.app) &&
    (v.detailsdigest === null || (isHex(v.detailsdigest) && v.detailsdigest.length === 64)) &&
    (v.details === undefined || v.details === null || isBase64(v.details)) &&
    isHex(v.link) &&
    v.link.length > 0 &&
    isHex(v.digest);
  if (!ok) return null;
  const e = v as unknown as EventRecord;
  return {
    kind: 'event',
    tenant: e.tenant,
    seq: e.seq,
    uuid: e.uuid,
    when: e.when,
    title: e.title,
    status: e.status,
    msg: e.msg,
    actor: e.actor,
    record: e.record,
    mode: e.mode,
    app: e.app,
    detailsdigest: e.detailsdigest,
    ...(e.details !== undefined ? { details: e.details } : {}),
    link: e.link,
    digest: e.digest,
  };
}

/** A checkpoint line's fields (and only those) with its token, checked as `parseCheckpoint` does; null if wrong. */
export function validCheckpoint(c: Record<string, unknown>, timestamp: unknown): CheckpointRecord | null {
  if (c.type !== CHECKPOINT_TYPE || c.v !== 1 || !isInt(c.tenant) || !isInt(c.seq) || !isInt(c.time)) return null;
  const hash = (x: unknown): x is string => typeof x === 'string' && /^[0-9a-f]{64}$/.test(x);
  if (!hash(c.link) || !hash(c.digest) || typeof c.signature !== 'string') return null;
  if (timestamp !== undefined && !isBase64(timestamp)) return null;
  const line: CheckpointLine = { type: CHECKPOINT_TYPE, v: 1, tenant: c.tenant, seq: c.seq, link: c.link, digest: c.digest, time: c.time, signature: c.signature };
  return { kind: 'checkpoint', tenant: line.tenant, line, ...(timestamp === undefined ? {} : { timestamp }) };
}

/** A JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isInt(v: unknown): v is number {
  return Number.isSafeInteger(v);
}

function isText(v: unknown): v is string | null {
  return v === null || typeof v === 'string';
}

function isHex(v: unknown): v is string {
  return typeof v === 'string' && /^(?:[0-9a-f]{2})*$/.test(v);
}

function isBase64(v: unknown): v is string {
  return typeof v === 'string' && v.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(v);
}
