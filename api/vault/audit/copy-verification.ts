// Verifies a SIEM's copy of audit trails (what an audit sink sent, captured as JSON lines, OCSF or syslog) with the
// checkpoint key's public half alone (and the timestamp authority's certificate): every event follows the digest of
// the one before it, no sequence number is missing, repeated with other content or out of order, and every
// checkpoint's signature (and timestamp) holds and matches the event it covers. `npm run audit:verify -- --from-file`.
import { auditDigest, checkpointKey, checkpointSigned } from '../../../proto/audit-checkpoint.js';
import { canonical } from './note.js';
import { parseJson, type ExportRecord } from './siem/record.js';
import { fromOcsf } from './siem/ocsf.js';
import { parseSyslogLine } from './siem/syslog.js';
import { checkpointImprint, verifyTimestamp } from './tsa.js';

export interface CopyReport {
  tenant: number;
  result: 'intact' | 'broken';
  /** Events whose content is in the copy, and those a sink's filter left out (sequence number and digest only). */
  events: number;
  skipped: number;
  /** Lines sent again (a resend after a lost acknowledgement), identical to the first. */
  duplicates: number;
  checkpoints: { valid: number; timestamped: number };
  /** The newest checkpoint that holds and matches the copy: everything up to it is proven (0: nothing is). */
  provenUpTo: number;
  broken?: { seq: number; why: string };
}

interface TenantState {
  report: CopyReport;
  last: number;
  digests: Map<number, Buffer>;
  seen: Map<number, string>;
}

/** The copy's records, in the order captured, checked tenant by tenant; the first break of each tenant is named. */
export async function verifyCopy(records: Iterable<ExportRecord>, publicKeyPem: string, tsaPem?: string): Promise<CopyReport[]> {
  const key = checkpointKey(publicKeyPem);
  const tenants = new Map<number, TenantState>();
  const stateOf = (tenant: number) => {
    let s = tenants.get(tenant);
    if (!s) tenants.set(tenant, (s = { report: { tenant, result: 'intact', events: 0, skipped: 0, duplicates: 0, checkpoints: { valid: 0, timestamped: 0 }, provenUpTo: 0 }, last: 0, digests: new Map(), seen: new Map() }));
    return s;
  };
  const pendingCheckpoints: { s: TenantState; r: Extract<ExportRecord, { kind: 'checkpoint' }> }[] = [];
  for (const r of records) {
    const s = stateOf(r.tenant);
    if (s.report.broken) continue;
    const why = r.kind === 'checkpoint' ? await checkpoint(s, r, key, tsaPem, pendingCheckpoints) : event(s, r);
    if (why) breakAt(s, why.seq, why.why);
  }
  // A checkpoint seen before the event it covers is checked once the whole copy is read.
  for (const { s, r } of pendingCheckpoints) {
    if (s.report.broken) continue;
    const digest = s.digests.get(r.line.seq);
    if (!digest) breakAt(s, r.line.seq, 'checkpoint of an event the copy does not hold');
    else if (digest.toString('hex') !== r.line.digest) breakAt(s, r.line.seq, 'checkpoint does not match the event');
    else s.report.provenUpTo = Math.max(s.report.provenUpTo, r.line.seq);
  }
  return [...tenants.values()].map((s) => s.report).sort((a, b) => a.tenant - b.tenant);
}

function breakAt(s: TenantState, seq: number, why: string): void {
  s.report.result = 'broken';
  s.report.broken = { seq, why };
}

/** An event or a skipped one, in order: the reason it breaks the copy, or undefined. */
function event(s: TenantState, r: Exclude<ExportRecord, { kind: 'checkpoint' }>): { seq: number; why: string } | undefined {
  const text = JSON.stringify(r);
  const seen = s.seen.get(r.seq);
  if (seen !== undefined) {
    if (seen !== text) return { seq: r.seq, why: 'sent twice with different content' };
    s.report.duplicates++;
    return undefined;
  }
  if (r.seq <= s.last) return { seq: r.seq, why: 'out of order' };
  if (r.seq !== s.last + 1) return { seq: s.last + 1, why: 'missing' };
  const stated = Buffer.from(r.digest, 'hex');
  if (r.kind === 'event') {
    const previous = r.seq === 1 ? Buffer.alloc(0) : s.digests.get(r.seq - 1)!;
    const details = r.details === null ? null : Buffer.from(r.details, 'base64');
    const computed = auditDigest(previous, r.seq, canonical({ uuid: r.uuid, when: r.when, title: r.title, status: r.status, msg: r.msg, actor: r.actor, record: r.record, mode: r.mode, app: r.app, details }));
    if (!computed.equals(stated)) return { seq: r.seq, why: 'digest does not follow from the event and the one before' };
    s.report.events++;
  } else {
    s.report.skipped++;
  }
  s.digests.set(r.seq, stated);
  s.seen.set(r.seq, text);
  s.last = r.seq;
  return undefined;
}

async function checkpoint(
  s: TenantState,
  r: Extract<ExportRecord, { kind: 'checkpoint' }>,
  key: ReturnType<typeof checkpointKey>,
  tsaPem: string | undefined,
  later: { s: TenantState; r: Extract<ExportRecord, { kind: 'checkpoint' }> }[],
): Promise<{ seq: number; why: string } | undefined> {
  const { line } = r;
  if (line.tenant !== r.tenant || !checkpointSigned(key, line)) return { seq: line.seq, why: 'checkpoint signature does not hold' };
  if (tsaPem && r.timestamp) {
    try {
      await verifyTimestamp(Buffer.from(r.timestamp, 'base64'), checkpointImprint(line), tsaPem);
      s.report.checkpoints.timestamped++;
    } catch (err) {
      return { seq: line.seq, why: `checkpoint timestamp does not hold: ${(err as Error).message}` };
    }
  }
  s.report.checkpoints.valid++;
  const digest = s.digests.get(line.seq);
  if (!digest) {
    later.push({ s, r });
    return undefined;
  }
  if (digest.toString('hex') !== line.digest) return { seq: line.seq, why: 'checkpoint does not match the event' };
  s.report.provenUpTo = Math.max(s.report.provenUpTo, line.seq);
  return undefined;
}

/** The records of a captured copy, line by line: the vault's JSON, OCSF JSON, or syslog lines carrying either. */
export function readCopy(text: string): ExportRecord[] {
  const out: ExportRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const r = parseJson(line) ?? ocsfLine(line) ?? parseSyslogLine(line);
    if (r) out.push(r);
  }
  return out;
}

function ocsfLine(line: string): ExportRecord | null {
  try {
    return fromOcsf(JSON.parse(line));
  } catch {
    return null;
  }
}
