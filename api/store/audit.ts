// SQL for a tenant's audit trail: the head's lock, the write's queue (a plain INSERT), the chained append (through the
// SECURITY DEFINER functions of Tenant0009KeyedAudit and Tenant0010AuditQueue), pages of events, one, a scan, the head.
import pg from 'pg';
import { publishCtes } from './privacy-events.js';
import { TenantTables } from './tenant-tables.js';

/** An event as stored; `details` is sealed. */
export interface AuditEventRow {
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
  details: Buffer | null;
  hash: Buffer;
  /** The public digest chain (null before Tenant0009KeyedAudit). */
  digest: Buffer | null;
}

/** An event as queued by a write: every stored field but its place in the chain, and the tokenizer's MAC of it. */
/** A stored event as the audit sinks read it (AuditStore.afterForExport): `details` only when it is needed. */
export type ExportRow = AuditEventRow & { detailsDigest: string | null; size: number };

export type QueuedEvent = Omit<AuditEventRow, 'seq' | 'hash' | 'digest'> & { mac: Buffer | null; chained?: boolean; oversize?: boolean; fetched?: number };

/**
 * The largest sealed details a queued event may have: 160 MiB, whose base64 (213 MiB) the link call must fit into the
 * tokenizer's largest message (MAX_MESSAGE_BYTES, 256 MiB, proto/loader.ts). No event of the vault's comes near: its
 * details hold a profile twice at most, and a body is at most 64 MiB (STRONGROOM_BODY_LIMIT, api/config.ts).
 */
export const MAX_QUEUED_DETAILS = 160 * 1024 * 1024;
/**
 * The most bytes a queued event's clear columns (title, status, msg, actor, mode, app) may hold together: the vault's
 * keep a message of 256 characters at most and names far shorter (JSON-escaped in the link call, up to six times
 * larger). A MAC is 32 bytes. Past either, a row is none of the vault's, refused unread as one with details too large.
 */
export const MAX_QUEUED_TEXT = 64 * 1024;
const MAX_QUEUED_MAC = 64;
/** A queued event's clear columns, each with what an oversize row is read with instead (NOT NULL ones: empty). */
const CLEAR_COLUMNS = { title: "''", status: "''", msg: 'null', actor: "''", mode: 'null', app: 'null' };
/** How many bytes of queued details one batch reads at most (past its first event). */
export const QUEUE_READ_BYTES = 16 * 1024 * 1024;

/** A queued event to append: its uuid (its data is in the queue) with the link and digest made for it. */
export interface QueuedLink {
  uuid: string;
  hash: Buffer;
  digest: Buffer;
}

/** An event to append: every stored field but its sequence number, with the link the tokenizer made for it. */
export type AuditAppend = Omit<AuditEventRow, 'seq' | 'digest'> & { digest: Buffer };

/** The chain's head: its last sequence number, link and digest (empty before the first event). */
export interface AuditHead {
  seq: number;
  hash: Buffer;
  digest: Buffer;
  /** The head's own event and the link before it: what proves the head's link to a tokenizer that did not make it. */
  proof?: HeadProof | undefined;
}

/** The event at the head (its stored fields) and the link it was chained from (empty for the first event). */
export interface HeadProof {
  event: Omit<AuditEventRow, 'seq' | 'hash' | 'digest'>;
  previous: Buffer;
  /** The head event's own stored digest, and the one before it (null: a legacy event, without one). */
  digests?: { own: Buffer | null; previous: Buffer | null } | undefined;
  /** A legacy event (stored before keyed links, no digest): its link is of the public sha256 chain. */
  legacy?: boolean;
}

/** How long the chainer waits for the head's lock (held by another chainer, or by a stray session): then it fails. */
export const AUDIT_LOCK_TIMEOUT = `set local lock_timeout = '2s'`;

/** An event's columns, as every reader of the trail (the auditor's command included) selects them. */
export const AUDIT_EVENT_COLUMNS = 'seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash, digest';
const COLUMNS = AUDIT_EVENT_COLUMNS;

function toRow(r: Record<string, unknown>): AuditEventRow {
  return {
    seq: Number(r.seq),
    uuid: r.uuid as string,
    when: Number(r.when),
    title: r.title as string,
    status: r.status as 'ok' | 'error',
    msg: (r.msg as string | null) ?? null,
    actor: r.actor as string,
    record: (r.record as string | null) ?? null,
    mode: (r.mode as string | null) ?? null,
    app: (r.app as string | null) ?? null,
    details: (r.details as Buffer | null) ?? null,
    hash: r.hash as Buffer,
    digest: (r.digest as Buffer | null) ?? null,
  };
}

// An event without its sealed bytes: their SHA-256, computed by the database, and their size.
const EXPORT_COLUMNS = `seq, uuid, "when", title, status, msg, actor, record, mode, app, null::bytea as details, hash, digest,
  encode(sha256(details), 'hex') as details_digest, coalesce(octet_length(details), 0) as size`;

function exportRow(r: Record<string, unknown>): ExportRow {
  return { ...toRow(r), detailsDigest: (r.details_digest as string | null) ?? null, size: Number(r.size) };
}

export class AuditStore extends TenantTables {
  /** The statement that locks and reads the head (for a transaction that begins with it). */
  get lockHeadStatement(): string {
    return `select seq, hash, digest from ${this.t}.audit_lock_head()`;
  }

  /**
   * The head's event and the link before it: the proof of the head's link (`HeadProof`). A statement of its own,
   * after the lock's: its snapshot is taken once the lock is held (one taken while waiting misses the last batch).
   */
  get headProofStatement(): string {
    return `select e.seq, e.uuid, e."when", e.title, e.status, e.msg, e.actor, e.record, e.mode, e.app, e.details, e.digest, p.hash as proof_previous,
      p.digest as proof_previous_digest from ${this.t}.audit_head h join ${this.t}.audit_events e on e.seq = h.seq left join ${this.t}.audit_events p on p.seq = h.seq - 1 where h.id = 1`;
  }

  /** The head as locked, with its proof when `proofRow` is its event's (`headProofStatement`). */
  static headOf(row: Record<string, unknown>, proofRow?: Record<string, unknown>): AuditHead {
    const head = { seq: Number(row.seq), hash: row.hash as Buffer, digest: row.digest as Buffer };
    if (!proofRow || head.seq < 1 || Number(proofRow.seq) !== head.seq) return head;
    const { seq: _seq, hash: _hash, digest: _digest, ...event } = toRow({ ...proofRow, hash: null });
    const digests = { own: (proofRow.digest as Buffer | null) ?? null, previous: (proofRow.proof_previous_digest as Buffer | null) ?? null };
    const proof = { event, previous: (proofRow.proof_previous as Buffer | null) ?? Buffer.alloc(0), digests };
    return { ...head, proof: proofRow.digest == null ? { ...proof, legacy: true } : proof };
  }

  /** Locks the head until the transaction ends (only inside one) and reads it: links are chained from it. */
  async lockHead(): Promise<AuditHead> {
    const [h] = await this.sql(this.lockHeadStatement);
    return AuditStore.headOf(h!);
  }

  /**
   * One round trip: appends `queued` (events in the queue, named by uuid with their links: their data moves from
   * the queue in the same statement, which refuses any no longer queued) then `rows`, from `head.seq + 1` on, and
   * moves the head; refused if it moved meanwhile.
   */
  async append(head: AuditHead, queued: QueuedLink[], rows: AuditAppend[]): Promise<void> {
    await this.sql(this.appendStatement(head, queued, rows));
  }

  /**
   * The append as one statement with its values written out (no parameters), so that it can also travel in one
   * round trip with BEGIN, the tenant's role and COMMIT (Database.auditAppendAlone): the head is locked for that
   * one statement only. Text goes through pg's own quoting, bytes as hex. Queued events travel as their uuids.
   */
  appendStatement(head: AuditHead, queued: QueuedLink[], rows: AuditAppend[]): string {
    const bytes = (b: Buffer | null) => (b === null ? 'null' : `decode('${b.toString('hex')}', 'hex')`);
    const text = (t: string | null) => (t === null ? 'null' : pg.escapeLiteral(t));
    const arr = (values: string[], type: string) => `array[${values.join(',')}]::${type}[]`;
    const ints = (n: number) => {
      if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
      return String(n);
    };
    const all = [...queued, ...rows];
    return `select ${this.t}.audit_append(${ints(head.seq + 1)}, ${bytes(head.hash)}, ${bytes(head.digest)},
      ${arr(rows.map((r) => text(r.uuid)), 'uuid')}, ${arr(rows.map((r) => ints(r.when)), 'bigint')},
      ${arr(rows.map((r) => text(r.title)), 'text')}, ${arr(rows.map((r) => text(r.status)), 'text')},
      ${arr(rows.map((r) => text(r.msg)), 'text')}, ${arr(rows.map((r) => text(r.actor)), 'text')},
      ${arr(rows.map((r) => text(r.record)), 'uuid')}, ${arr(rows.map((r) => text(r.mode)), 'text')},
      ${arr(rows.map((r) => text(r.app)), 'text')}, ${arr(rows.map((r) => bytes(r.details)), 'bytea')},
      ${arr(all.map((r) => bytes(r.hash)), 'bytea')}, ${arr(all.map((r) => bytes(r.digest)), 'bytea')},
      ${arr(queued.map((r) => text(r.uuid)), 'uuid')})`;
  }

  /**
   * Queues events in the caller's transaction (a write's): they are chained later, in a batch, by `append`. With
   * `commit`, the statement is the transaction's last and COMMIT goes with it. A plain INSERT (the tenant's role may
   * add to the queue, never change it: tenant-roles.ts), each value a parameter of its own: no arrays for PostgreSQL
   * to build and take apart, no function to call.
   */
  async enqueue(
    rows: (Omit<QueuedEvent, 'mac'> & { mac?: Buffer | null | undefined })[],
    opts: { commit?: boolean; privacy?: { rows: string; due: number } | undefined } = {},
  ): Promise<void> {
    const params: unknown[] = [];
    const value = (v: unknown) => `$${params.push(v)}`;
    // The write's privacy events (api/vault/privacy/outbox.ts) ride in the same statement: no round trip of their own.
    const privacy = opts.privacy ? `with ${publishCtes(this.t, value(opts.privacy.rows), value(opts.privacy.due))} ` : '';
    const values = rows.map((r) =>
      `(${value(r.uuid)}::uuid, ${value(r.when)}::bigint, ${value(r.title)}, ${value(r.status)}, ${value(r.msg)}, ${value(r.actor)}, ${value(r.record)}::uuid,
        ${value(r.mode)}, ${value(r.app)}, ${value(r.details)}::bytea, ${value(r.mac ?? null)}::bytea)`);
    await (opts.commit ? this.sqlThenCommit.bind(this) : this.sql.bind(this))(
      `${privacy}insert into ${this.t}.audit_queue (uuid, "when", title, status, msg, actor, record, mode, app, details, mac) values ${values.join(', ')}`,
      params,
    );
  }

  /**
   * The statement that reads the oldest queued events, in the order they were queued (for a transaction's start),
   * each with whether its uuid is in the trail already (`chained`: a linked row queued again, never linked twice).
   * At most `limit` rows and, past the first, at most QUEUE_READ_BYTES of details in all: a batch's memory and its
   * link call stay bounded whatever was queued. A row whose details exceed MAX_QUEUED_DETAILS, or its clear columns
   * MAX_QUEUED_TEXT (no genuine event's do), comes without them, `oversize`, to be refused unread. `fetched`: how many
   * rows the limit took, before the byte bound (more than it answers: the queue holds more).
   */
  queuedStatement(limit: number): string {
    const octets = (c: string) => `coalesce(octet_length(q.${c}), 0)`;
    const text = Object.keys(CLEAR_COLUMNS).map(octets).join(' + ');
    const oversize = `${octets('details')} > ${MAX_QUEUED_DETAILS} or ${text} > ${MAX_QUEUED_TEXT} or ${octets('mac')} > ${MAX_QUEUED_MAC}`;
    const own = `least(${octets('details')}, ${MAX_QUEUED_DETAILS}) + least(${text}, ${MAX_QUEUED_TEXT}) + 256`;
    // An oversize row is read without any of its large columns: it is refused by its uuid alone.
    const large = Object.entries({ ...CLEAR_COLUMNS, details: 'null', mac: 'null' }).map(([c, empty]) => `case when w.oversize then ${empty} else w.${c} end as ${c}`);
    return `select w.uuid, w."when", w.record, ${large.join(', ')}, w.oversize, w.fetched,
      exists (select from ${this.t}.audit_events e where e.uuid = w.uuid) as chained
      from (select q.*, (${oversize}) as oversize, count(*) over () as fetched, sum(${own}) over (order by q.id) as running, ${own} as own
              from (select * from ${this.t}.audit_queue order by id limit ${Math.trunc(limit)}) q) w
      where w.running - w.own < ${QUEUE_READ_BYTES} order by w.id`;
  }

  static queuedOf(row: Record<string, unknown>): QueuedEvent {
    const { seq: _seq, hash: _hash, digest: _digest, ...event } = toRow({ ...row, seq: 0, hash: null, digest: null });
    return {
      ...event,
      mac: (row.mac as Buffer | null) ?? null,
      ...(row.chained === true ? { chained: true } : {}),
      ...(row.oversize === true ? { oversize: true } : {}),
      ...(row.fetched !== undefined ? { fetched: Number(row.fetched) } : {}),
    };
  }

  /**
   * Moves queued events the tokenizer refused to link (their MAC does not hold) out of the queue into audit_refused,
   * as the vault's own user (the tenant's role may not), in one statement. Answers how many moved.
   */
  async refuse(uuids: readonly string[], now: number): Promise<number> {
    const moved = await this.asVault(
      `with gone as (delete from ${this.t}.audit_queue where uuid = any($1::uuid[]) returning *)
       insert into ${this.t}.audit_refused (uuid, "when", title, status, msg, actor, record, mode, app, details, mac, refused_at)
       select uuid, "when", title, status, msg, actor, record, mode, app, details, mac, $2 from gone returning uuid`,
      [uuids, now],
    );
    return moved.length;
  }

  /** The oldest queued events, in the order they were queued. */
  async queued(limit: number): Promise<QueuedEvent[]> {
    return (await this.sql(this.queuedStatement(limit))).map((r) => AuditStore.queuedOf(r));
  }

  /** How many events wait in the queue, and the time (unix seconds) of the oldest. */
  async queueDepth(): Promise<{ depth: number; oldest: number | null }> {
    const [r] = await this.sql<{ depth: number; oldest: string | null }>(`select count(*)::int as depth, min("when") as oldest from ${this.t}.audit_queue`);
    return { depth: Number(r?.depth ?? 0), oldest: r?.oldest == null ? null : Number(r.oldest) };
  }

  /** The head as committed, and the highest stored sequence number, read together (one snapshot). */
  async head(): Promise<AuditHead & { last: number }> {
    const [h] = await this.sql<{ seq: string; hash: Buffer; digest: Buffer; last: string | null }>(
      `select h.seq, h.hash, h.digest, (select max(seq) from ${this.t}.audit_events) as last from ${this.t}.audit_head h where h.id = 1`,
    );
    return { seq: Number(h!.seq), hash: h!.hash, digest: h!.digest, last: Number(h!.last ?? 0) };
  }

  /** The event at `seq` and the one before it (what a checkpoint of that head is checked against). */
  async atAndBefore(seq: number): Promise<AuditEventRow[]> {
    return (await this.sql(`select ${COLUMNS} from ${this.t}.audit_events where seq between $1 - 1 and $1 order by seq`, [seq])).map(toRow);
  }

  /**
   * A page of events, newest first: every event of the tenant, or those of one record. `hide`: a LIKE pattern of the
   * `actor` texts left out (the console's housekeeping, api/vault/audit/actor.ts).
   */
  async page(record: string | null, offset: number, limit: number, hide?: string): Promise<{ total: number; rows: AuditEventRow[] }> {
    const params: unknown[] = [];
    const conditions: string[] = [];
    if (record !== null) conditions.push(`record = $${params.push(record)}`);
    if (hide !== undefined) conditions.push(`actor not like $${params.push(hide)}`);
    const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
    const n = params.length;
    const [count] = await this.sql<{ n: number }>(`select count(*)::int as n from ${this.t}.audit_events ${where}`, params);
    const rows = await this.sql(`select ${COLUMNS} from ${this.t}.audit_events ${where} order by seq desc offset $${n + 1} limit $${n + 2}`, [...params, offset, limit]);
    return { total: Number(count?.n ?? 0), rows: rows.map(toRow) };
  }

  async byUuid(uuid: string): Promise<AuditEventRow | null> {
    const [r] = await this.sql(`select ${COLUMNS} from ${this.t}.audit_events where uuid = $1`, [uuid]);
    return r ? toRow(r) : null;
  }

  /**
   * Events after a sequence number, oldest first, at most `limit` and, past the first, at most `maxBytes` of sealed
   * details in all: a batch's memory is bounded whatever the events carry.
   */
  async afterBounded(seq: number, limit: number, maxBytes: number): Promise<AuditEventRow[]> {
    const rows = await this.sql(
      `select ${COLUMNS} from (select ${COLUMNS}, sum(coalesce(length(details), 0) + 256) over (order by seq) as running,
         coalesce(length(details), 0) + 256 as own from (select ${COLUMNS} from ${this.t}.audit_events where seq > $1 order by seq limit $2) b) w
       where running - own < $3 order by seq`,
      [seq, limit, maxBytes],
    );
    return rows.map(toRow);
  }

  /**
   * Events after `seq` as the audit sinks send them: the SHA-256 of their sealed details (hex) and its size instead
   * of the bytes (`details` null), at most `limit` and, past the first, at most `maxBytes` of details hashed (the
   * sizes are read first, without the bytes); and the digest of event `seq` (empty at 0), the chain's start. `cut`:
   * the byte bound ended the page (with `firstAlways` false, before its first event).
   */
  async afterForExport(seq: number, limit: number, maxBytes: number, firstAlways = true): Promise<{ previous: Buffer; rows: ExportRow[]; cut: boolean }> {
    const [before] = seq > 0 ? await this.sql<{ digest: Buffer | null }>(`select digest from ${this.t}.audit_events where seq = $1`, [seq]) : [];
    const { rows, cut } = await this.hashedWithin('seq > $1', [seq], limit, maxBytes, firstAlways);
    return { previous: before?.digest ?? Buffer.alloc(0), rows, cut };
  }

  /** One record's events after a sequence number, oldest first, as afterForExport reads them (the same bounds). */
  async forRecordAfter(record: string, seq: number, limit: number, maxBytes: number): Promise<{ rows: ExportRow[]; cut: boolean }> {
    return this.hashedWithin('record = $1 and seq > $2', [record, seq], limit, maxBytes, true);
  }

  private async hashedWithin(where: string, params: unknown[], limit: number, maxBytes: number, firstAlways: boolean): Promise<{ rows: ExportRow[]; cut: boolean }> {
    const n = params.length;
    const sizes = await this.sql<{ seq: string; size: string }>(
      `select seq, coalesce(octet_length(details), 0) as size from ${this.t}.audit_events where ${where} order by seq limit $${n + 1}`,
      [...params, limit],
    );
    let bytes = 0;
    let take = 0;
    for (const r of sizes) {
      bytes += Number(r.size);
      if (bytes > maxBytes && !(take === 0 && firstAlways)) break;
      take++;
    }
    if (!take) return { rows: [], cut: sizes.length > 0 };
    const last = Number(sizes[take - 1]!.seq);
    const found = await this.sql(`select ${EXPORT_COLUMNS} from ${this.t}.audit_events where ${where} and seq <= $${n + 1} order by seq`, [...params, last]);
    return { rows: found.map(exportRow), cut: take < sizes.length };
  }

  /** The sealed details of these events, by sequence number. */
  async detailsOf(seqs: readonly number[]): Promise<Map<number, Buffer | null>> {
    const rows = await this.sql<{ seq: string; details: Buffer | null }>(`select seq, details from ${this.t}.audit_events where seq = any($1::bigint[])`, [seqs]);
    return new Map(rows.map((r) => [Number(r.seq), r.details ?? null]));
  }

  /** Events after a sequence number, oldest first: the chain in order, a batch at a time. */
  async after(seq: number, limit: number): Promise<AuditEventRow[]> {
    return (await this.sql(`select ${COLUMNS} from ${this.t}.audit_events where seq > $1 order by seq limit $2`, [seq, limit])).map(toRow);
  }
}
