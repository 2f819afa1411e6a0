// Streams each tenant's chained audit trail to the configured sinks (docs/operations.md, "Audit sinks"): events in
// sequence order with their links and digests, and each signed checkpoint (with its timestamp token) after the event
// it covers, so the copy can be verified alone. Each sink keeps a cursor per tenant in the database and sends from
// it: a sink that is down falls behind and catches up, never stopping a request; nothing is skipped, and a resend
// covers at most the batch whose acknowledgement was lost. Per tenant one replica sends at a time (a lease, as the
// privacy events' dispatcher holds one). Events a sink's filter leaves out travel as their sequence number and digest
// alone (`skipped`), so the gap is visible and the chain still checks across it.
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import type { SessionLeases } from '../../store/session-locks.js';
import type { AuditEventRow, AuditStore, ExportRow } from '../../store/audit.js';
import type { AuditSinkSettings } from '../../config-audit-sinks.js';
import { isTenantGone } from '../../store/errors.js';
import { digestOfLeaf, leafOfDigest, type CheckpointLine } from '../../../proto/audit-checkpoint.js';
import { canonicalHead } from './note.js';
import { Job } from '../jobs/job.js';
import { auditSinkErrors, auditSinkLagEvents, auditSinkLagSeconds } from '../../metrics.js';
import { eventRecord, skippedRecord, type ExportRecord } from './siem/record.js';
import { openAuditSink, type AuditSink } from './siem/sinks.js';

/**
 * Events per batch read. Events are read with their sealed details' SHA-256, not the bytes (the digest chain covers the
 * hash); only an event of the chain's first form is sent with its bytes, at most BATCH_BYTES of them per batch (a
 * larger event goes alone).
 */
const BATCH = 500;
/** Sealed details the database hashes for one batch (past its first event). */
const HASH_BYTES = 64 * 1024 * 1024;
const BATCH_BYTES = 4 * 1024 * 1024;
/** At most this many bytes per send (a receiver's body limit, nginx's default among them); a larger record goes alone. */
const SEND_BYTES = 1024 * 1024;
/** Sends between confirmations: what a failed confirmation sends again. */
const CONFIRM_EVERY = 8;
/** A sink that failed waits before its next try: from 1 s, doubling, at most 30 s. */
const LONGEST_WAIT_MS = 30_000;
/**
 * How long after a batch is appended its tenant is sent: under load the batches of that moment go out together (a
 * pass per second rather than per batch; each pass costs a confirmation and a cursor write per sink).
 */
const GATHER_MS = 1000;
/** How often a sink's lag is measured per tenant. */
const MEASURE_MS = 5_000;

export interface ExportOptions {
  seconds: number;
  lagWarn: number;
  /** Checkpoints are timestamped: one is sent once its token is there (the events go on meanwhile). */
  timestamped: boolean;
}

/** Whether a sink's filter keeps an event (its tenant is judged before: a tenant left out sends nothing). */
export function keeps(filter: AuditSinkSettings['filter'], e: Pick<AuditEventRow, 'title' | 'status'>): boolean {
  if (filter.operations && !filter.operations.includes(e.title)) return false;
  if (filter.outcomes && !filter.outcomes.includes(e.status)) return false;
  return true;
}

interface SinkState {
  settings: AuditSinkSettings;
  sink: AuditSink;
  failures: number;
  notBefore: number;
  lagging: Set<number>;
}

export class AuditExporter extends Job {
  private readonly sinks: SinkState[];
  private readonly kicked = new Set<number>();
  private lastFull = 0;
  private readonly measured = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    settings: readonly AuditSinkSettings[],
    private readonly opts: ExportOptions,
    private readonly leases: SessionLeases | undefined,
  ) {
    super('audit export', settings.length ? opts.seconds : 0, log);
    this.sinks = settings.map((s) => ({ settings: s, sink: openAuditSink(s), failures: 0, notBefore: 0, lagging: new Set() }));
  }

  /** A batch was appended to a tenant's trail here: sent now rather than at the next tick. */
  appended(tenantId: number): void {
    if (!this.sinks.length || this.stopping) return;
    this.kicked.add(tenantId);
    this.kickSoon(GATHER_MS);
  }


  protected async pass(): Promise<number> {
    const kicked = [...this.kicked];
    this.kicked.clear();
    const full = !kicked.length || Date.now() - this.lastFull >= this.opts.seconds * 900;
    if (full) this.lastFull = Date.now();
    const tenants = full ? await this.db.global().tenants.all() : kicked.map((id) => ({ id, name: '' }));
    const names = full ? new Map(tenants.map((t) => [t.id, t.name])) : undefined;
    let sent = 0;
    for (const { id } of tenants) {
      if (this.stopping) break;
      if (this.leases && !(await this.leases.hold(`strongroom:audit-export:${id}`))) continue;
      try {
        sent += await this.exportTenant(id, names?.get(id) ?? (await this.db.global().tenants.byId(id))?.name ?? '');
      } catch (err) {
        if (isTenantGone(err)) await this.leases?.release(`strongroom:audit-export:${id}`);
        else this.log.error({ err: { type: (err as Error).name, message: (err as Error).message }, tenantId: id }, 'audit export failed');
      }
    }
    if (this.kicked.size) this.kickSoon(GATHER_MS);
    return sent;
  }

  override async stop(): Promise<void> {
    await super.stop();
    for (const s of this.sinks) await s.sink.close();
  }

  /** One tenant to every sink that takes it; answers how many records went. */
  private async exportTenant(tenantId: number, tenantName: string): Promise<number> {
    let sent = 0;
    // Sinks at the same place read the same events once, and share their records.
    const reads = new Map<number, Promise<SinkRow[]>>();
    const read = (from: number) => {
      let r = reads.get(from);
      if (!r) reads.set(from, (r = readForSinks(this.db.stores(tenantId).audit, from)));
      return r;
    };
    const records = new Map<number, ExportRecord>();
    const recordOf = (e: SinkRow) => {
      let r = records.get(e.seq);
      if (!r) records.set(e.seq, (r = eventRecord(tenantId, e, { detailsDigest: e.detailsDigest, withDetails: e.withDetails })));
      return r;
    };
    for (const s of this.sinks) {
      const tenants = s.settings.filter.tenants;
      if (tenants && !tenants.includes(tenantId) && !tenants.includes(tenantName)) continue;
      if (Date.now() >= s.notBefore) {
        try {
          sent += await this.catchUp(s, tenantId, read, recordOf);
          s.failures = 0;
        } catch (err) {
          if (isTenantGone(err)) throw err;
          s.failures++;
          s.notBefore = Date.now() + Math.min(LONGEST_WAIT_MS, 1000 * 2 ** Math.min(s.failures - 1, 10));
          auditSinkErrors.inc({ sink: s.settings.name });
          this.log.warn({ sink: s.settings.name, tenantId, err: { type: (err as Error).name, message: (err as Error).message } }, 'audit sink failed: it catches up from its cursor');
        }
      }
      // Measured whether it sent or not (a sink that is down shows its lag growing), every few seconds.
      const key = `${s.settings.name}/${tenantId}`;
      if (Date.now() - (this.measured.get(key) ?? 0) >= MEASURE_MS || s.failures) {
        this.measured.set(key, Date.now());
        await this.measure(s, tenantId, (await this.db.global().auditSinkCursors.get(s.settings.name, tenantId)).seq);
      }
    }
    return sent;
  }

  /** Sends a tenant's trail to one sink from its cursor, batch after batch, until it reaches the head. */
  private async catchUp(s: SinkState, tenantId: number, read: (from: number) => Promise<SinkRow[]>, recordOf: (e: SinkRow) => ExportRecord): Promise<number> {
    const global = this.db.global();
    const stores = this.db.stores(tenantId);
    let cursor = await global.auditSinkCursors.get(s.settings.name, tenantId);
    let sent = 0;
    let unconfirmed = 0;
    const confirm = async () => {
      // The cursor moves only once the sink confirmed: a receiver that died with messages unread gets them again.
      await s.sink.confirm();
      await global.auditSinkCursors.advance(s.settings.name, tenantId, cursor, Math.floor(Date.now() / 1000));
      unconfirmed = 0;
    };
    for (;;) {
      const events = await read(cursor.seq);
      const upTo = events.at(-1)?.seq ?? cursor.seq;
      const kept = await stores.auditCheckpointed.linesBetween(cursor.checkpointSeq, upTo, BATCH);
      const untimed = this.opts.timestamped ? kept.findIndex((k) => k.timestamp === null) : -1;
      const checkpoints = untimed < 0 ? kept : kept.slice(0, untimed);
      const records = merge(tenantId, s.settings.filter, events, checkpoints, recordOf);
      if (!records.length) break;
      for (const chunk of bySize(records)) await s.sink.send(chunk);
      cursor = { seq: upTo, checkpointSeq: checkpoints.at(-1)?.line.seq ?? cursor.checkpointSeq };
      sent += records.length;
      if (++unconfirmed >= CONFIRM_EVERY) await confirm();
      if (this.stopping || events.length < BATCH) break;
    }
    if (unconfirmed) await confirm();
    return sent;
  }

  /** The sink's lag behind the tenant's head, in events and seconds; a warning when it passes the threshold. */
  private async measure(s: SinkState, tenantId: number, at: number): Promise<void> {
    const head = await this.db.stores(tenantId).audit.head();
    const labels = { sink: s.settings.name, tenant: String(tenantId) };
    const behind = Math.max(0, head.seq - at);
    auditSinkLagEvents.set(labels, behind);
    const [next] = behind ? await this.db.stores(tenantId).audit.after(at, 1) : [];
    auditSinkLagSeconds.set(labels, next ? Math.max(0, Date.now() / 1000 - next.when) : 0);
    if (behind >= this.opts.lagWarn && !s.lagging.has(tenantId)) {
      s.lagging.add(tenantId);
      this.log.warn({ sink: s.settings.name, tenantId, behind }, 'audit sink lagging');
    } else if (behind < this.opts.lagWarn) s.lagging.delete(tenantId);
  }
}

/**
 * A batch's records in chain order: each event (or its skipped stand-in), and each checkpoint right after the event
 * it covers. Checkpoints are sent once their timestamp token is there, when timestamps are kept.
 */
function merge(
  tenantId: number,
  filter: AuditSinkSettings['filter'],
  events: SinkRow[],
  checkpoints: { line: CheckpointLine; timestamp: Buffer | null }[],
  recordOf: (e: SinkRow) => ExportRecord,
): ExportRecord[] {
  const out: ExportRecord[] = [];
  let c = 0;
  for (const e of events) {
    out.push(keeps(filter, e) ? recordOf(e) : skippedRecord(tenantId, e, e.withDetails ? undefined : leafOfDigest(canonicalHead(e), e.detailsDigest)));
    while (c < checkpoints.length && checkpoints[c]!.line.seq <= e.seq) {
      const { line, timestamp } = checkpoints[c++]!;
      out.push({ kind: 'checkpoint', tenant: tenantId, line, ...(timestamp ? { timestamp: timestamp.toString('base64') } : {}) });
    }
  }
  // Checkpoints of events sent before (the checkpoint came after them).
  for (; c < checkpoints.length; c++) {
    const { line, timestamp } = checkpoints[c]!;
    out.push({ kind: 'checkpoint', tenant: tenantId, line, ...(timestamp ? { timestamp: timestamp.toString('base64') } : {}) });
  }
  return out;
}

/** An event as the sinks send it: with its details' bytes only when its digest is of the first form. */
type SinkRow = ExportRow & { withDetails: boolean };

/**
 * A batch of events after `from`. An event whose stored digest follows in the leaf form from its fields and details'
 * hash goes without its bytes; any other (the first form, a legacy event, or a digest that follows in neither form,
 * which a verifier is to see as it is) goes with them, the batch ending before those bytes pass BATCH_BYTES.
 */
export async function readForSinks(audit: AuditStore, from: number): Promise<SinkRow[]> {
  const { previous, rows } = await audit.afterForExport(from, BATCH, HASH_BYTES);
  const out: SinkRow[] = [];
  const wanted: number[] = [];
  let before = previous;
  let bytes = 0;
  for (const r of rows) {
    const leafForm = r.digest !== null && digestOfLeaf(before, r.seq, leafOfDigest(canonicalHead(r), r.detailsDigest)).equals(r.digest);
    if (!leafForm) {
      if (wanted.length && bytes + r.size > BATCH_BYTES) break;
      wanted.push(r.seq);
      bytes += r.size;
    }
    out.push({ ...r, withDetails: !leafForm });
    before = r.digest ?? before;
  }
  if (wanted.length) {
    const details = await audit.detailsOf(wanted);
    for (const r of out) if (r.withDetails) r.details = details.get(r.seq) ?? null;
  }
  return out;
}

/** A record's size as sent, roughly: its sealed details (base64, when sent) and the rest. */
function sizeOf(r: ExportRecord): number {
  return (r.kind === 'event' ? (r.details?.length ?? 0) + r.actor.length + (r.msg?.length ?? 0) : 0) + 1024;
}

/** Records in sends of at most SEND_BYTES (a larger record alone), in order. */
function bySize(records: ExportRecord[]): ExportRecord[][] {
  const out: ExportRecord[][] = [];
  let chunk: ExportRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = sizeOf(r);
    if (chunk.length && bytes + size > SEND_BYTES) {
      out.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(r);
    bytes += size;
  }
  if (chunk.length) out.push(chunk);
  return out;
}
