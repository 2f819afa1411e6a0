// The vault's side of a person's audit proof (proof.ts): their events after a sequence number, grouped by the first
// signed checkpoint at or after each, with the leaves of every event between. The cost is bounded by the caller's
// request, not by the tenant: at most `limit` of the person's events, at most PROOF_LEAVES leaves and PROOF_BYTES of
// sealed details hashed (by the database, which sends the hashes, never the bytes) in all, counting segments that
// fail; the answer holds hashes and the person's events' fields, never sealed bytes. Events the vault cannot prove
// are named with why: not checkpointed yet, chained before leaves existed, or too far from their checkpoint.
import { auditDigestFirstForm, auditLeaf, digestOfLeaf, leafOfDigest } from '../../../proto/audit-checkpoint.js';
import type { ExportRow } from '../../store/audit.js';
import type { Stores } from '../../store/stores.js';
import { canonical, canonicalHead } from './note.js';
import { PROOF_TYPE, type AuditProof, type ProofEvent, type ProofSegment } from './proof.js';
import { eventRecord, type EventRecord } from './siem/record.js';

/** Leaves in one answer, all segments together (2 MiB of hashes); a longer segment is not proven. */
export const PROOF_LEAVES = 65_536;
/** Bytes of sealed details the database hashes for one answer; a segment holding more is not proven. */
export const PROOF_BYTES = 64 * 1024 * 1024;
const PAGE = 1000;

export interface Unproven {
  seq: number;
  why: 'not checkpointed yet' | 'chained before proofs' | 'too many events before its checkpoint' | 'the stored trail does not lead to its checkpoint';
}

export interface ProofAnswer {
  proof: AuditProof;
  unproven: Unproven[];
  /** Where the next call starts (`after`), when the person has more events than this answer took. */
  next: number | null;
}

interface Budget {
  leaves: number;
  bytes: number;
}

export async function proveEvents(stores: Stores, tenantId: number, record: string, after: number, limit: number): Promise<ProofAnswer> {
  // The person's own events spend the budget too (a quarter of it at most).
  const mine = await stores.audit.forRecordAfter(record, after, limit + 1, PROOF_BYTES / 4);
  const events = mine.rows.slice(0, limit);
  let next: number | null = events.length && (mine.rows.length > limit || mine.cut) ? events.at(-1)!.seq : null;
  const segments: ProofSegment[] = [];
  const unproven: Unproven[] = [];
  const budget: Budget = { leaves: PROOF_LEAVES, bytes: PROOF_BYTES - events.reduce((n, e) => n + e.size, 0) };
  let i = 0;
  while (i < events.length) {
    const start = events[i]!;
    const cp = await stores.auditCheckpointed.covering(start.seq);
    if (!cp) {
      for (const e of events.slice(i)) unproven.push({ seq: e.seq, why: 'not checkpointed yet' });
      break;
    }
    let j = i;
    while (j < events.length && events[j]!.seq <= cp.line.seq) j++;
    const group = events.slice(i, j);
    const span = cp.line.seq - start.seq + 1;
    if (span > budget.leaves) {
      // Another call takes it whole, unless no call could.
      if (i > 0 && span <= PROOF_LEAVES) {
        next = start.seq - 1;
        break;
      }
      for (const e of group) unproven.push({ seq: e.seq, why: 'too many events before its checkpoint' });
      i = j;
      continue;
    }
    const built = await segmentOf(stores, group, cp, budget);
    if (built === 'over budget') {
      if (i > 0) {
        next = start.seq - 1;
        break;
      }
      for (const e of group) unproven.push({ seq: e.seq, why: 'too many events before its checkpoint' });
      i = j;
      continue;
    }
    if ('why' in built) {
      // Chained before leaves up to `at`: the person's events after it may still be proven from there.
      const taken = built.why === 'chained before proofs' ? group.filter((e) => e.seq <= built.at) : group;
      for (const e of taken) unproven.push({ seq: e.seq, why: built.why });
      i += taken.length;
      continue;
    }
    segments.push(built);
    i = j;
  }
  return { proof: { type: PROOF_TYPE, v: 1, tenant: tenantId, record, segments }, unproven, next };
}

/** Why a segment cannot be made, and the sequence number where that was found. */
type Failure = { why: Unproven['why']; at: number };

/**
 * The segment from `group`'s first event to its checkpoint, its leaves recomputed from the stored fields and the
 * details' hashes and checked against the stored digests. Every event read spends the budget, whatever comes of it.
 */
async function segmentOf(stores: Stores, group: ExportRow[], cp: { line: ProofSegment['checkpoint']; timestamp: Buffer | null }, budget: Budget): Promise<ProofSegment | Failure | 'over budget'> {
  const first = group[0]!.seq;
  const broken = (at: number): Failure => ({ why: 'the stored trail does not lead to its checkpoint', at });
  const leaves = Buffer.alloc((cp.line.seq - first + 1) * 32);
  let previous: Buffer | undefined;
  let digest: Buffer = Buffer.alloc(0);
  let seq = first - 1;
  while (seq < cp.line.seq) {
    const page = await stores.audit.afterForExport(seq, Math.min(PAGE, cp.line.seq - seq), Math.max(0, budget.bytes), false);
    if (previous === undefined) {
      // Stored before the digest chain (a legacy event, not re-chained yet): no digest to start from.
      if (first > 1 && !page.previous.length) return { why: 'chained before proofs', at: first };
      digest = previous = page.previous;
    }
    const rows = page.rows.filter((r) => r.seq <= cp.line.seq);
    // The byte budget ran out before the next event: nothing more is hashed for this answer.
    if (!rows.length) return page.cut ? 'over budget' : broken(seq + 1);
    budget.leaves -= rows.length;
    budget.bytes -= rows.reduce((n, r) => n + r.size, 0);
    for (const r of rows) {
      if (r.seq !== seq + 1) return broken(seq + 1);
      if (!r.digest) return { why: 'chained before proofs', at: r.seq };
      const leaf = leafOfDigest(canonicalHead(r), r.detailsDigest);
      const prior = digest;
      digest = digestOfLeaf(prior, r.seq, leaf);
      if (!digest.equals(r.digest)) return (await firstForm(stores, prior, r)) ? { why: 'chained before proofs', at: r.seq } : broken(r.seq);
      leaf.copy(leaves, (r.seq - first) * 32);
      seq = r.seq;
    }
  }
  if (digest.toString('hex') !== cp.line.digest) return broken(cp.line.seq);
  return {
    previous: previous!.toString('hex'),
    first,
    leaves: leaves.toString('base64'),
    events: group.map((e) => proofEvent(cp.line.tenant, e)),
    checkpoint: cp.line,
    ...(cp.timestamp ? { timestamp: cp.timestamp.toString('base64') } : {}),
  };
}

/** Whether the event's stored digest is of the first form (chained before leaves): its details read to tell. */
async function firstForm(stores: Stores, prior: Buffer, r: ExportRow): Promise<boolean> {
  const details = (await stores.audit.detailsOf([r.seq])).get(r.seq) ?? null;
  const text = canonical({ ...r, details });
  return auditDigestFirstForm(prior, r.seq, text).equals(r.digest!) && !digestOfLeaf(prior, r.seq, auditLeaf(text)).equals(r.digest!);
}

/** The event as the sinks export it, less what a segment does not carry. */
function proofEvent(tenantId: number, e: ExportRow): ProofEvent {
  const { kind: _kind, tenant: _tenant, details: _details, link: _link, digest: _digest, ...event } = eventRecord(tenantId, e, { detailsDigest: e.detailsDigest }) as EventRecord;
  return event;
}
