// SQL for a tenant's audit trail: the chained append (through audit_append()), pages of events, one event, a scan.
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
}

/** An event to append: every stored field but the chain's, plus the canonical text its link covers. */
export type AuditAppend = Omit<AuditEventRow, 'seq' | 'hash'> & { canonical: string };

const COLUMNS = 'seq, uuid, "when", title, status, msg, actor, record, mode, app, details, hash';

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
  };
}

export class AuditStore extends TenantTables {
  /** One round trip: the function takes the head lock, chains, inserts and moves the head. */
  async append(rows: AuditAppend[]): Promise<void> {
    await this.sql(
      `select ${this.t}.audit_append($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[],
        $7::uuid[], $8::text[], $9::text[], $10::bytea[], $11::text[])`,
      [
        rows.map((r) => r.uuid), rows.map((r) => r.when), rows.map((r) => r.title), rows.map((r) => r.status),
        rows.map((r) => r.msg), rows.map((r) => r.actor), rows.map((r) => r.record), rows.map((r) => r.mode),
        rows.map((r) => r.app), rows.map((r) => r.details), rows.map((r) => r.canonical),
      ],
    );
  }

  /** A page of events, newest first: every event of the tenant, or those of one record. */
  async page(record: string | null, offset: number, limit: number): Promise<{ total: number; rows: AuditEventRow[] }> {
    const where = record === null ? '' : 'where record = $1';
    const params = record === null ? [] : [record];
    const n = params.length;
    const [count] = await this.sql<{ n: number }>(`select count(*)::int as n from ${this.t}.audit_events ${where}`, params);
    const rows = await this.sql(`select ${COLUMNS} from ${this.t}.audit_events ${where} order by seq desc offset $${n + 1} limit $${n + 2}`, [...params, offset, limit]);
    return { total: Number(count?.n ?? 0), rows: rows.map(toRow) };
  }

  async byUuid(uuid: string): Promise<AuditEventRow | null> {
    const [r] = await this.sql(`select ${COLUMNS} from ${this.t}.audit_events where uuid = $1`, [uuid]);
    return r ? toRow(r) : null;
  }

  /** Events after a sequence number, oldest first: the chain in order, a batch at a time. */
  async after(seq: number, limit: number): Promise<AuditEventRow[]> {
    return (await this.sql(`select ${COLUMNS} from ${this.t}.audit_events where seq > $1 order by seq limit $2`, [seq, limit])).map(toRow);
  }
}
