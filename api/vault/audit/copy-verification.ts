// Verifies a SIEM's copy of audit trails (what an audit sink sent, captured as JSON lines, OCSF or syslog) with the
// checkpoint key's public half alone (and the timestamp authority's certificate): every event follows the digest of
// the one before it, no sequence number is missing, repeated with other content or out of order, and every
// checkpoint's signature (and timestamp) holds and matches the event it covers. `npm run audit:verify -- --from-file`.
//
// What a copy proves. An event is proven by a later checkpoint that holds when every event between them is in the
// copy with its content, or as a `skipped` stand-in (an event a sink's filter left out) with its leaf: the
// checkpoint's signed digest then follows from them. A stand-in without a leaf (an event of the chain's first form)
// carries only its digest, which cannot be checked: nothing before it is proven by a checkpoint after it.
// `--complete` says the copy comes from an unfiltered sink, and fails on any stand-in. With the timestamp
// authority's certificate, only timestamped checkpoints prove anything (a checkpoint key's holder could re-sign).
import { isDeepStrictEqual } from 'node:util';
import { detailsDigest, digestOfLeaf, followingDigest, leafOfDigest, checkpointKey, checkpointSigned } from '../../../proto/audit-checkpoint.js';
import { canonical, canonicalHead } from './note.js';
import { recordOf, toJson, type ExportRecord } from './siem/record.js';
import { fromOcsf, toOcsf } from './siem/ocsf.js';
import { checkpointImprint, verifyTimestamp } from './tsa.js';

export interface CopyReport {
  tenant: number;
  result: 'intact' | 'broken';
  /** Events whose content is in the copy, and those a sink's filter left out (sequence number and digest only). */
  events: number;
  skipped: number;
  /** Lines sent again (a resend after a lost acknowledgement), identical to the first. */
  duplicates: number;
  checkpoints: { valid: number; timestamped: number; untimed: number };
  /** Events with content proven by a later checkpoint, and those not (a stand-in, or no checkpoint, after them). */
  proven: number;
  unproven: number;
  /** The newest checkpoint up to which every event is in the copy and proven (0: none). */
  provenUpTo: number;
  broken?: { seq: number; why: string };
}

export interface CopyOptions {
  /** The timestamp authority's certificate (or CA): only timestamped checkpoints then prove anything. */
  tsaPem?: string | undefined;
  /** The copy comes from an unfiltered sink: a stand-in in it is an event removed. */
  complete?: boolean | undefined;
}

interface TenantState {
  report: CopyReport;
  last: number;
  digests: Map<number, Buffer>;
  /** The link of each event given with its content (hex): a checkpoint signs its event's link too. */
  links: Map<number, string>;
  seen: Map<number, string>;
  /** Sequence numbers of content events and of stand-ins, and the checkpoints that may prove (held and matched). */
  contents: number[];
  stands: number[];
  proving: number[];
}

type Checkpoint = Extract<ExportRecord, { kind: 'checkpoint' }>;

/** The copy's records, in the order captured, checked tenant by tenant; the first break of each tenant is named. */
export async function verifyCopy(records: Iterable<ExportRecord>, publicKeyPem: string, opts: CopyOptions = {}): Promise<CopyReport[]> {
  const key = checkpointKey(publicKeyPem);
  const tenants = new Map<number, TenantState>();
  const stateOf = (tenant: number) => {
    let s = tenants.get(tenant);
    if (!s) {
      const report: CopyReport = { tenant, result: 'intact', events: 0, skipped: 0, duplicates: 0, checkpoints: { valid: 0, timestamped: 0, untimed: 0 }, proven: 0, unproven: 0, provenUpTo: 0 };
      tenants.set(tenant, (s = { report, last: 0, digests: new Map(), links: new Map(), seen: new Map(), contents: [], stands: [], proving: [] }));
    }
    return s;
  };
  const later: { s: TenantState; r: Checkpoint; proves: boolean }[] = [];
  for (const r of records) {
    const s = stateOf(r.tenant);
    if (s.report.broken) continue;
    const why = r.kind === 'checkpoint' ? await checkpoint(s, r, key, opts.tsaPem, later) : event(s, r, opts.complete === true);
    if (why) breakAt(s, why.seq, why.why);
  }
  // A checkpoint seen before the event it covers is checked once the whole copy is read.
  for (const { s, r, proves } of later) {
    if (s.report.broken) continue;
    const digest = s.digests.get(r.line.seq);
    if (!digest) breakAt(s, r.line.seq, 'checkpoint of an event the copy does not hold');
    else if (digest.toString('hex') !== r.line.digest || !linkMatches(s, r.line)) breakAt(s, r.line.seq, 'checkpoint does not match the event');
    else if (proves) s.proving.push(r.line.seq);
  }
  for (const s of tenants.values()) prove(s);
  return [...tenants.values()].map((s) => s.report).sort((a, b) => a.tenant - b.tenant);
}

/** Which events the proving checkpoints prove: those with no stand-in between them and a checkpoint at or after them. */
function prove(s: TenantState): void {
  const checkpoints = [...new Set(s.proving)].sort((a, b) => a - b);
  const stands = [...s.stands].sort((a, b) => a - b);
  const standAfter = (seq: number) => stands.find((x) => x > seq);
  const nextCheckpoint = (seq: number) => checkpoints.find((c) => c >= seq);
  for (const seq of s.contents) {
    const c = nextCheckpoint(seq);
    const stand = standAfter(seq);
    if (c !== undefined && (stand === undefined || stand > c)) s.report.proven++;
    else s.report.unproven++;
  }
  const firstStand = stands[0] ?? Infinity;
  s.report.provenUpTo = Math.max(0, ...checkpoints.filter((c) => c < firstStand));
}

/** The checkpoint's link is its event's, when the copy holds the event with its content (a stand-in has no link). */
function linkMatches(s: TenantState, line: Checkpoint['line']): boolean {
  const link = s.links.get(line.seq);
  return link === undefined || link === line.link;
}

function breakAt(s: TenantState, seq: number, why: string): void {
  s.report.result = 'broken';
  s.report.broken = { seq, why };
}

/** An event or a skipped one, in order: the reason it breaks the copy, or undefined. */
function event(s: TenantState, r: Exclude<ExportRecord, { kind: 'checkpoint' }>, complete: boolean): { seq: number; why: string } | undefined {
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
    const fields = { uuid: r.uuid, when: r.when, title: r.title, status: r.status, msg: r.msg, actor: r.actor, record: r.record, mode: r.mode, app: r.app };
    let computed: Buffer;
    if (r.details !== undefined) {
      // Sent with its bytes (an event of the first form): the digest of the bytes must be the one stated too.
      const details = r.details === null ? null : Buffer.from(r.details, 'base64');
      if (detailsDigest(details) !== r.detailsdigest) return { seq: r.seq, why: 'details do not match their digest' };
      computed = followingDigest(previous, r.seq, canonical({ ...fields, details }), stated);
    } else {
      computed = digestOfLeaf(previous, r.seq, leafOfDigest(canonicalHead(fields), r.detailsdigest));
    }
    if (!computed.equals(stated)) return { seq: r.seq, why: 'digest does not follow from the event and the one before' };
    s.report.events++;
    s.contents.push(r.seq);
  } else {
    if (complete) return { seq: r.seq, why: 'left out (a skipped stand-in) in a copy said to be complete' };
    s.report.skipped++;
    if (r.leaf === undefined) s.stands.push(r.seq);
    else {
      // With its leaf, the stand-in's digest is recomputed: the chain is checked across it, so it proves as events do.
      const previous = r.seq === 1 ? Buffer.alloc(0) : s.digests.get(r.seq - 1)!;
      if (!digestOfLeaf(previous, r.seq, Buffer.from(r.leaf, 'hex')).equals(stated)) return { seq: r.seq, why: 'digest does not follow from the leaf and the one before' };
    }
  }
  s.digests.set(r.seq, stated);
  if (r.kind === 'event') s.links.set(r.seq, r.link);
  s.seen.set(r.seq, text);
  s.last = r.seq;
  return undefined;
}

async function checkpoint(
  s: TenantState,
  r: Checkpoint,
  key: ReturnType<typeof checkpointKey>,
  tsaPem: string | undefined,
  later: { s: TenantState; r: Checkpoint; proves: boolean }[],
): Promise<{ seq: number; why: string } | undefined> {
  const { line } = r;
  if (line.tenant !== r.tenant || !checkpointSigned(key, line)) return { seq: line.seq, why: 'checkpoint signature does not hold' };
  let proves = true;
  if (tsaPem) {
    if (r.timestamp) {
      try {
        await verifyTimestamp(Buffer.from(r.timestamp, 'base64'), checkpointImprint(line), tsaPem);
        s.report.checkpoints.timestamped++;
      } catch (err) {
        return { seq: line.seq, why: `checkpoint timestamp does not hold: ${(err as Error).message}` };
      }
    } else {
      // Signed, but not stamped: its key's holder could have signed it any time.
      s.report.checkpoints.untimed++;
      proves = false;
    }
  }
  s.report.checkpoints.valid++;
  const digest = s.digests.get(line.seq);
  if (!digest) {
    later.push({ s, r, proves });
    return undefined;
  }
  if (digest.toString('hex') !== line.digest || !linkMatches(s, line)) return { seq: line.seq, why: 'checkpoint does not match the event' };
  if (proves) s.proving.push(line.seq);
  return undefined;
}

/** A captured copy's records, and the lines that look like ours but are not one faithfully (edited, malformed). */
export interface Copy {
  records: ExportRecord[];
  /** 1-based line numbers, with why. */
  malformed: { line: number; why: string }[];
}

/** A line that claims to be an audit record (the vault's JSON, OCSF from Strongroom, our syslog structured data). */
const OURS = /strongroom\.audit|"class_uid"\s*:\s*6003|strongroom@32473/;

/**
 * The records of a captured copy, line by line: the vault's JSON, OCSF JSON, or syslog lines carrying either. A line
 * that claims to be ours must be one exactly: its JSON the record's own (an extra or changed field, a SIEM-visible
 * OCSF field that disagrees with the record, is refused), so nothing a SIEM shows escapes the check.
 */
export function readCopy(text: string): Copy {
  const records: ExportRecord[] = [];
  const malformed: Copy['malformed'] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const r = faithful(line);
    if (r === 'not ours') return;
    if (typeof r === 'string') malformed.push({ line: i + 1, why: r });
    else records.push(r);
  });
  return { records, malformed };
}

function faithful(line: string): ExportRecord | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined) {
    const own = recordOf(parsed);
    if (own) return sameJson(parsed, JSON.parse(toJson(own)), ['@timestamp']) && stampAgrees(parsed, own) ? own : 'fields that are not the record\'s own';
    const ocsf = fromOcsf(parsed);
    if (ocsf) return sameJson(parsed, toOcsf(ocsf)) ? ocsf : 'OCSF fields that disagree with the record';
    // Anything a SIEM would take for one of ours, however it is spelled, must be one exactly.
    if (claimsOurs(parsed)) return 'not a well-formed audit record';
  }
  // A syslog line: its message is the JSON after the header, and the header's structured data must agree with it.
  const brace = parsed === undefined ? line.indexOf('{') : -1;
  if (brace > 0) {
    const inner = faithful(line.slice(brace));
    if (typeof inner !== 'string') {
      const head = line.slice(0, brace);
      const sd = SD.exec(head);
      const seq = inner.kind === 'checkpoint' ? inner.line.seq : inner.seq;
      return sd && Number(sd[1]) === inner.tenant && Number(sd[2]) === seq && headerAgrees(head, inner) ? inner : 'a syslog header that disagrees with its record';
    }
    if (inner !== 'not ours') return inner;
  }
  return OURS.test(line) ? 'not a well-formed audit record' : 'not ours';
}

/** A parsed value a SIEM would show as a Strongroom audit record: our type, OCSF's class 6003, or our product. */
function claimsOurs(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as { type?: unknown; class_uid?: unknown; metadata?: { product?: { name?: unknown } } };
  return (typeof o.type === 'string' && o.type.toLowerCase().startsWith('strongroom')) || Number(o.class_uid) === 6003 || o.metadata?.product?.name === 'Strongroom';
}

/** Elastic's `@timestamp`, when there, is the record's own time (what Kibana dates it by), as the sink wrote it. */
function stampAgrees(parsed: unknown, r: ExportRecord): boolean {
  const stamp = (parsed as { '@timestamp'?: unknown })['@timestamp'];
  if (stamp === undefined) return true;
  const seconds = r.kind === 'checkpoint' ? r.line.time : r.when;
  return stamp === new Date(seconds * 1000).toISOString();
}

/**
 * A whole RFC 5424 header (a relay's `%rawmsg%`) must be the one the vault wrote for the record, but for the host and
 * app names and the process id, which are the sender's: its priority, time, MSGID and one structured data element. A
 * template's own header (rsyslog's `%TIMESTAMP% %HOSTNAME% …`) is the relay's, and only its structured data is ours.
 */
function headerAgrees(head: string, r: ExportRecord): boolean {
  const m = /^<(\d{1,3})>1 (\S+) \S+ \S+ \S+ (\S+) (.*) $/.exec(head.slice(head.indexOf('<') < 0 ? 0 : head.indexOf('<')));
  if (!m) return !/^\s*<\d{1,3}>1 /.test(head.slice(Math.max(0, head.indexOf('<'))));
  const severity = r.kind === 'checkpoint' ? 5 : r.kind === 'skipped' || r.status === 'ok' ? 6 : 4;
  const seconds = r.kind === 'checkpoint' ? r.line.time : r.when;
  const seq = r.kind === 'checkpoint' ? r.line.seq : r.seq;
  return (
    Number(m[1]) === 13 * 8 + severity &&
    m[2] === new Date(seconds * 1000).toISOString().replace('.000Z', 'Z') &&
    m[3] === r.kind &&
    m[4] === `[strongroom@32473 tenant="${r.tenant}" seq="${seq}"]`
  );
}

/** The structured data every syslog message of ours carries. */
const SD = /\[strongroom@32473 tenant="(\d+)" seq="(\d+)"\]/;

/** Deep equality of two JSON values, `ignoring` top-level keys a collector adds (Elastic's `@timestamp`). */
function sameJson(a: unknown, b: unknown, ignoring: string[] = []): boolean {
  const strip = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => !ignoring.includes(k))) : v);
  return isDeepStrictEqual(strip(a), strip(b));
}
