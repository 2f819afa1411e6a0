// A proof that one person's audit events belong to a tenant's trail, checkable offline with the checkpoint key's
// public half (and a timestamp authority's certificate): AuditProveEvents answers it, `npm run audit:verify --
// --proof <file>` checks it. Each segment runs from one of the person's events to the next signed checkpoint: the
// digest before it, then one leaf per event up to the checkpoint. The person's own events are given (their fields,
// and of their sealed details only the hash, which the leaf covers) and their leaves recomputed; everyone else's are
// only leaves, which say nothing about them but that they are there (each canonical text holds a random UUID). The
// digest chain recomputed over the leaves must reach the digest the checkpoint signed: an event altered, added or
// moved does not. The shape is checked strictly (no field unknown, none missing), and the report lists the events
// proven: what a reader believes is what was checked.
import { createHash, createPublicKey } from 'node:crypto';
import { checkpointKey, checkpointSigned, digestOfLeaf, leafOfDigest, type CheckpointLine } from '../../../proto/audit-checkpoint.js';
import { canonicalHead } from './note.js';
import { isObject, validCheckpoint, type EventRecord } from './siem/record.js';
import { checkpointImprint, verifyTimestamp } from './tsa.js';

export const PROOF_TYPE = 'strongroom.audit.proof';
/** An RFC 3161 token is a few kilobytes; a larger one is not one. */
const TIMESTAMP_BYTES = 64 * 1024;

/**
 * One of the person's events: the fields its canonical text covers, its sealed details as their SHA-256 (hex); an
 * exported event record (siem/record.ts) without what the segment says once (tenant) or does not need (link, digest).
 */
export type ProofEvent = Omit<EventRecord, 'kind' | 'tenant' | 'details' | 'link' | 'digest'>;

export interface ProofSegment {
  /** The digest of event `first - 1`, hex (empty when `first` is the trail's first event). */
  previous: string;
  first: number;
  /** The 32-byte leaves of events `first` to the checkpoint's, in order, concatenated, base64. */
  leaves: string;
  /** The person's events in the segment, oldest first; the first is event `first`. */
  events: ProofEvent[];
  checkpoint: CheckpointLine;
  /** The checkpoint's RFC 3161 token (DER, base64), when one was had. */
  timestamp?: string;
}

export interface AuditProof {
  type: typeof PROOF_TYPE;
  v: 1;
  tenant: number;
  /** The person's token: every event given is one of theirs. */
  record: string;
  segments: ProofSegment[];
}

export interface ProofReport {
  result: 'intact' | 'broken';
  tenant: number | null;
  record: string | null;
  /** The SHA-256 of the checkpoint key checked against (DER, hex): say which key a proof was checked with. */
  key: string;
  /** The person's events shown to belong to the trail, and those under a checkpoint that proves nothing (see below). */
  proven: number;
  unproven: number;
  checkpoints: { valid: number; timestamped: number; untimed: number };
  /** The events proven, as checked: what the proof says happened. */
  events: Pick<ProofEvent, 'seq' | 'uuid' | 'when' | 'title' | 'status' | 'actor'>[];
  broken?: { seq: number | null; why: string };
}

/** The SHA-256 of a PEM public key's DER (SPKI), hex: the same key in any PEM spelling has one fingerprint. */
export function keyFingerprint(publicKeyPem: string): string {
  return createHash('sha256').update(createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' })).digest('hex');
}

/**
 * Checks a proof. With the timestamp authority's certificate, a checkpoint without a timestamp proves nothing (its
 * key's holder could have signed it at any time): its events count as unproven. A proof that proves no event at all
 * is broken: there is nothing in it to believe.
 */
export async function verifyProof(value: unknown, publicKeyPem: string, opts: { tsaPem?: string | undefined } = {}): Promise<ProofReport> {
  const key = checkpointKey(publicKeyPem);
  const report: ProofReport = { result: 'intact', tenant: null, record: null, key: keyFingerprint(publicKeyPem), proven: 0, unproven: 0, checkpoints: { valid: 0, timestamped: 0, untimed: 0 }, events: [] };
  const broken = (seq: number | null, why: string): ProofReport => ({ ...report, result: 'broken', events: [], broken: { seq, why } });
  if (!isObject(value) || value.type !== PROOF_TYPE || value.v !== 1) return broken(null, `not a ${PROOF_TYPE} v1 document`);
  if (!exactly(value, ['type', 'v', 'tenant', 'record', 'segments'])) return broken(null, 'a proof has type, v, tenant, record and segments, and nothing else');
  const p = value as unknown as AuditProof;
  if (!Number.isSafeInteger(p.tenant) || p.tenant < 1 || typeof p.record !== 'string' || !p.record || !Array.isArray(p.segments)) return broken(null, 'tenant, record or segments malformed');
  report.tenant = p.tenant;
  report.record = p.record;
  let after = 0;
  for (const s of p.segments as unknown[]) {
    const why = await segment(s, p, after, { key, tsaPem: opts.tsaPem, report });
    if (why) return broken(why.seq, why.why);
    // Segments follow each other by their events (two may share a checkpoint, from two pages of answers).
    after = (s as ProofSegment).events.at(-1)!.seq;
  }
  if (report.proven === 0) return { ...broken(null, 'the proof proves no event'), proven: 0, unproven: report.unproven, checkpoints: report.checkpoints };
  return report;
}

type Why = { seq: number | null; why: string } | undefined;

interface Check {
  key: ReturnType<typeof checkpointKey>;
  tsaPem: string | undefined;
  report: ProofReport;
}

const SEGMENT_KEYS = ['previous', 'first', 'leaves', 'events', 'checkpoint'];
const EVENT_KEYS = ['seq', 'uuid', 'when', 'title', 'status', 'msg', 'actor', 'record', 'mode', 'app', 'detailsdigest'];
const CHECKPOINT_KEYS = ['type', 'v', 'tenant', 'seq', 'link', 'digest', 'time', 'signature'];

async function segment(value: unknown, p: AuditProof, after: number, { key, tsaPem, report }: Check): Promise<Why> {
  if (!isObject(value) || !(exactly(value, SEGMENT_KEYS) || exactly(value, [...SEGMENT_KEYS, 'timestamp']))) return { seq: null, why: 'a segment has previous, first, leaves, events, checkpoint and timestamp, and nothing else' };
  const s = value as unknown as ProofSegment;
  if (!Array.isArray(s.events) || !s.events.length) return { seq: null, why: 'a segment without events' };
  const checkpoint = isObject(s.checkpoint) && exactly(s.checkpoint, CHECKPOINT_KEYS) ? validCheckpoint(s.checkpoint, undefined) : null;
  if (!checkpoint) return { seq: null, why: 'a segment without a checkpoint line' };
  const line = checkpoint.line;
  if (line.tenant !== p.tenant || !checkpointSigned(key, line)) return { seq: line.seq, why: 'checkpoint signature does not hold' };
  const first = s.first;
  if (!Number.isSafeInteger(first) || first < 1 || first <= after || first > line.seq) return { seq: line.seq, why: 'segment does not start before its checkpoint, after the events before' };
  if (typeof s.previous !== 'string' || !/^([0-9a-f]{64})?$/.test(s.previous) || (first === 1) !== (s.previous === '')) return { seq: first, why: 'digest before the segment malformed' };
  if (typeof s.leaves !== 'string' || !isBase64(s.leaves)) return { seq: first, why: 'leaves malformed' };
  const leaves = Buffer.from(s.leaves, 'base64');
  if (leaves.length !== (line.seq - first + 1) * 32) return { seq: first, why: 'not one leaf per event up to the checkpoint' };
  if (s.timestamp !== undefined && (typeof s.timestamp !== 'string' || s.timestamp.length > (TIMESTAMP_BYTES * 4) / 3 || !isBase64(s.timestamp))) return { seq: line.seq, why: 'timestamp malformed' };
  const own = new Map<number, ProofEvent>();
  let last = first - 1;
  for (const e of s.events as unknown[]) {
    if (!validEvent(e)) return { seq: isObject(e) && Number.isSafeInteger(e.seq) ? (e.seq as number) : null, why: 'event malformed' };
    if (e.seq <= last || e.seq > line.seq) return { seq: e.seq, why: 'events out of order or past the checkpoint' };
    if (e.record !== p.record) return { seq: e.seq, why: 'an event of someone else given as theirs' };
    own.set(e.seq, e);
    last = e.seq;
  }
  if (!own.has(first)) return { seq: first, why: 'the segment does not start at one of the events' };
  let digest: Buffer = Buffer.from(s.previous, 'hex');
  for (let seq = first; seq <= line.seq; seq++) {
    const at = (seq - first) * 32;
    const leaf = leaves.subarray(at, at + 32);
    const e = own.get(seq);
    if (e && !leafOfDigest(canonicalHead(e), e.detailsdigest).equals(leaf)) return { seq, why: 'event is not the one the trail holds' };
    digest = digestOfLeaf(digest, seq, leaf);
  }
  if (digest.toString('hex') !== line.digest) return { seq: line.seq, why: 'the events do not lead to the checkpoint' };
  report.checkpoints.valid++;
  let proves = true;
  if (tsaPem) {
    if (s.timestamp) {
      try {
        await verifyTimestamp(Buffer.from(s.timestamp, 'base64'), checkpointImprint(line), tsaPem);
        report.checkpoints.timestamped++;
      } catch (err) {
        return { seq: line.seq, why: `checkpoint timestamp does not hold: ${(err as Error).message}` };
      }
    } else {
      report.checkpoints.untimed++;
      proves = false;
    }
  }
  if (!proves) {
    report.unproven += own.size;
    return undefined;
  }
  report.proven += own.size;
  for (const e of own.values()) report.events.push({ seq: e.seq, uuid: e.uuid, when: e.when, title: e.title, status: e.status, actor: e.actor });
  return undefined;
}

function validEvent(e: unknown): e is ProofEvent {
  if (!isObject(e) || !exactly(e, EVENT_KEYS)) return false;
  const text = (v: unknown) => v === null || typeof v === 'string';
  return (
    Number.isSafeInteger(e.seq) &&
    (e.seq as number) >= 1 &&
    typeof e.uuid === 'string' &&
    Number.isSafeInteger(e.when) &&
    typeof e.title === 'string' &&
    (e.status === 'ok' || e.status === 'error') &&
    text(e.msg) &&
    typeof e.actor === 'string' &&
    text(e.record) &&
    text(e.mode) &&
    text(e.app) &&
    (e.detailsdigest === null || (typeof e.detailsdigest === 'string' && /^[0-9a-f]{64}$/.test(e.detailsdigest)))
  );
}

/** Exactly these own keys, no other. */
function exactly(o: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(o);
  return own.length === keys.length && keys.every((k) => Object.hasOwn(o, k));
}

/** Canonical base64 (padded, no whitespace): what the vault writes, so nothing else reads as the same bytes. */
function isBase64(v: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v) && Buffer.from(v, 'base64').toString('base64') === v;
}
