// A proof that one person's audit events belong to a tenant's trail, checkable offline with the checkpoint key's
// public half (and a timestamp authority's certificate): AuditProveEvents answers it, `npm run audit:verify --
// --proof <file>` checks it. Each segment runs from one of the person's events to the next signed checkpoint: the
// digest before it, then one leaf (the hash of the canonical text) per event up to the checkpoint. The person's own
// events are given whole and their leaves recomputed; everyone else's are only leaves, which say nothing about them
// (each canonical text holds a random UUID). The digest chain recomputed over the leaves must reach the digest the
// checkpoint signed: an event altered, left out, added or moved does not.
import { auditLeaf, checkpointKey, checkpointSigned, digestOfLeaf, parseCheckpoint, type CheckpointLine } from '../../../proto/audit-checkpoint.js';
import { canonical } from './note.js';
import { checkpointImprint, verifyTimestamp } from './tsa.js';

export const PROOF_TYPE = 'strongroom.audit.proof';

/** One of the person's events, whole: the fields its canonical text covers, `details` sealed (base64). */
export interface ProofEvent {
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
  details: string | null;
}

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
  /** The person's token: every event given whole is one of theirs. */
  record: string;
  segments: ProofSegment[];
}

export interface ProofReport {
  result: 'intact' | 'broken';
  tenant: number | null;
  record: string | null;
  /** The person's events shown to belong to the trail, and those under a checkpoint that proves nothing (see below). */
  proven: number;
  unproven: number;
  checkpoints: { valid: number; timestamped: number; untimed: number };
  broken?: { seq: number | null; why: string };
}

/**
 * Checks a proof. With the timestamp authority's certificate, a checkpoint without a timestamp proves nothing (its
 * key's holder could have signed it at any time): its events count as unproven, the proof stays intact.
 */
export async function verifyProof(value: unknown, publicKeyPem: string, opts: { tsaPem?: string | undefined } = {}): Promise<ProofReport> {
  const key = checkpointKey(publicKeyPem);
  const p = value as Partial<AuditProof> | null;
  const report: ProofReport = { result: 'intact', tenant: null, record: null, proven: 0, unproven: 0, checkpoints: { valid: 0, timestamped: 0, untimed: 0 } };
  const broken = (seq: number | null, why: string): ProofReport => ({ ...report, result: 'broken', broken: { seq, why } });
  if (!p || typeof p !== 'object' || p.type !== PROOF_TYPE || p.v !== 1) return broken(null, `not a ${PROOF_TYPE} v1 document`);
  if (!Number.isSafeInteger(p.tenant) || typeof p.record !== 'string' || !p.record || !Array.isArray(p.segments)) return broken(null, 'tenant, record or segments missing');
  report.tenant = p.tenant!;
  report.record = p.record;
  let after = 0;
  for (const s of p.segments as unknown[]) {
    const why = await segment(s as ProofSegment, p as AuditProof, after, { key, tsaPem: opts.tsaPem, report });
    if (why) return broken(why.seq, why.why);
    // Segments follow each other by their events (two may share a checkpoint, from two pages of answers).
    after = (s as ProofSegment).events.at(-1)!.seq;
  }
  return report;
}

type Why = { seq: number | null; why: string } | undefined;

interface Check {
  key: ReturnType<typeof checkpointKey>;
  tsaPem: string | undefined;
  report: ProofReport;
}

async function segment(s: ProofSegment, p: AuditProof, after: number, { key, tsaPem, report }: Check): Promise<Why> {
  if (!s || typeof s !== 'object' || !Array.isArray(s.events) || !s.events.length) return { seq: null, why: 'a segment without events' };
  const line = parseCheckpoint(JSON.stringify(s.checkpoint ?? null));
  if (!line) return { seq: null, why: 'a segment without a checkpoint line' };
  if (line.tenant !== p.tenant || !checkpointSigned(key, line)) return { seq: line.seq, why: 'checkpoint signature does not hold' };
  const first = s.first;
  if (!Number.isSafeInteger(first) || first < 1 || first <= after || first > line.seq) return { seq: line.seq, why: 'segment does not start before its checkpoint, after the events before' };
  if (typeof s.previous !== 'string' || !/^([0-9a-f]{64})?$/.test(s.previous) || (first === 1) !== (s.previous === '')) return { seq: first, why: 'digest before the segment malformed' };
  const leaves = typeof s.leaves === 'string' ? Buffer.from(s.leaves, 'base64') : Buffer.alloc(0);
  if (leaves.length !== (line.seq - first + 1) * 32) return { seq: first, why: 'not one leaf per event up to the checkpoint' };
  const own = new Map<number, ProofEvent>();
  let last = first - 1;
  for (const e of s.events) {
    if (!e || !Number.isSafeInteger(e.seq) || e.seq <= last || e.seq > line.seq) return { seq: e?.seq ?? null, why: 'events out of order or past the checkpoint' };
    if (e.record !== p.record) return { seq: e.seq, why: 'an event of someone else given whole' };
    own.set(e.seq, e);
    last = e.seq;
  }
  if (!own.has(first)) return { seq: first, why: 'the segment does not start at one of the events' };
  let digest: Buffer = Buffer.from(s.previous, 'hex');
  for (let seq = first; seq <= line.seq; seq++) {
    const at = (seq - first) * 32;
    const leaf = leaves.subarray(at, at + 32);
    const e = own.get(seq);
    if (e) {
      let text: string;
      try {
        text = canonicalOf(e);
      } catch {
        return { seq, why: 'event malformed' };
      }
      if (!auditLeaf(text).equals(leaf)) return { seq, why: 'event is not the one the trail holds' };
    }
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
  if (proves) report.proven += own.size;
  else report.unproven += own.size;
  return undefined;
}

function canonicalOf(e: ProofEvent): string {
  const str = (v: unknown) => v === null || typeof v === 'string';
  if (typeof e.uuid !== 'string' || !Number.isSafeInteger(e.when) || typeof e.title !== 'string' || (e.status !== 'ok' && e.status !== 'error')) throw new Error('malformed');
  if (!str(e.msg) || typeof e.actor !== 'string' || !str(e.record) || !str(e.mode) || !str(e.app) || !str(e.details)) throw new Error('malformed');
  const details = e.details === null ? null : Buffer.from(e.details, 'base64');
  if (details && details.toString('base64') !== e.details) throw new Error('malformed');
  return canonical({ uuid: e.uuid, when: e.when, title: e.title, status: e.status, msg: e.msg, actor: e.actor, record: e.record, mode: e.mode, app: e.app, details });
}
