// The vault's side of a person's audit proof (proof.ts): their events after a sequence number, grouped by the first
// signed checkpoint at or after each, with the leaves of every event between. The cost is bounded by the caller's
// request, not by the tenant: at most `limit` of the person's events, and at most PROOF_LEAVES leaves in all (the
// checkpoint settings keep a segment far shorter: 10,000 events by default). Events the vault cannot prove are
// named with why: not checkpointed yet, chained before leaves existed, or too far from their checkpoint.
import { auditDigestFirstForm, auditLeaf, digestOfLeaf } from '../../../proto/audit-checkpoint.js';
import type { AuditEventRow } from '../../store/audit.js';
import type { Stores } from '../../store/stores.js';
import { canonical } from './note.js';
import { PROOF_TYPE, type AuditProof, type ProofEvent, type ProofSegment } from './proof.js';

/** Leaves in one answer, all segments together (2 MiB of hashes); a longer segment is not proven. */
export const PROOF_LEAVES = 65_536;
const PAGE = 1000;
const PAGE_BYTES = 4 * 1024 * 1024;

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

export async function proveEvents(stores: Stores, tenantId: number, record: string, after: number, limit: number): Promise<ProofAnswer> {
  const mine = await stores.audit.forRecordAfter(record, after, limit + 1);
  let next: number | null = mine.length > limit ? mine[limit - 1]!.seq : null;
  const events = mine.slice(0, limit);
  const segments: ProofSegment[] = [];
  const unproven: Unproven[] = [];
  let budget = PROOF_LEAVES;
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
    if (span > budget) {
      // Another call takes it whole, unless no call could.
      if (segments.length && span <= PROOF_LEAVES) {
        next = start.seq - 1;
        break;
      }
      for (const e of group) unproven.push({ seq: e.seq, why: 'too many events before its checkpoint' });
      i = j;
      continue;
    }
    const built = await segmentOf(stores, group, cp);
    if ('why' in built) {
      // Chained before leaves up to `at`: the person's events after it may still be proven from there.
      const taken = built.why === 'chained before proofs' ? group.filter((e) => e.seq <= built.at) : group;
      for (const e of taken) unproven.push({ seq: e.seq, why: built.why });
      i += taken.length;
      continue;
    }
    segments.push(built);
    budget -= span;
    i = j;
  }
  return { proof: { type: PROOF_TYPE, v: 1, tenant: tenantId, record, segments }, unproven, next };
}

/** Why a segment cannot be made, and the sequence number where that was found. */
type Failure = { why: Unproven['why']; at: number };

/** The segment from `group`'s first event to its checkpoint, its leaves recomputed and checked against the digests. */
async function segmentOf(stores: Stores, group: AuditEventRow[], cp: { line: ProofSegment['checkpoint']; timestamp: Buffer | null }): Promise<ProofSegment | Failure> {
  const first = group[0]!.seq;
  const broken = (at: number): Failure => ({ why: 'the stored trail does not lead to its checkpoint', at });
  const before = first > 1 ? (await stores.audit.atAndBefore(first)).find((r) => r.seq === first - 1) : undefined;
  // Stored before the digest chain (a legacy event, not re-chained yet): no digest to start from.
  if (first > 1 && !before?.digest) return { why: 'chained before proofs', at: first };
  const previous = before?.digest ?? Buffer.alloc(0);
  const leaves = Buffer.alloc((cp.line.seq - first + 1) * 32);
  let digest = previous;
  let seq = first - 1;
  while (seq < cp.line.seq) {
    const rows = (await stores.audit.afterBounded(seq, Math.min(PAGE, cp.line.seq - seq), PAGE_BYTES)).filter((r) => r.seq <= cp.line.seq);
    if (!rows.length) return broken(seq + 1);
    for (const r of rows) {
      if (r.seq !== seq + 1) return broken(seq + 1);
      if (!r.digest) return { why: 'chained before proofs', at: r.seq };
      const text = canonical(r);
      const leaf = auditLeaf(text);
      const prior = digest;
      digest = digestOfLeaf(prior, r.seq, leaf);
      // A digest of the first form (before leaves) cannot be shown without the event's whole text.
      if (!digest.equals(r.digest)) return auditDigestFirstForm(prior, r.seq, text).equals(r.digest) ? { why: 'chained before proofs', at: r.seq } : broken(r.seq);
      leaf.copy(leaves, (r.seq - first) * 32);
      seq = r.seq;
    }
  }
  if (digest.toString('hex') !== cp.line.digest) return broken(cp.line.seq);
  return {
    previous: previous.toString('hex'),
    first,
    leaves: leaves.toString('base64'),
    events: group.map(proofEvent),
    checkpoint: cp.line,
    ...(cp.timestamp ? { timestamp: cp.timestamp.toString('base64') } : {}),
  };
}

function proofEvent(e: AuditEventRow): ProofEvent {
  return {
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
    details: e.details ? e.details.toString('base64') : null,
  };
}
