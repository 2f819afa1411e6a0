// The audit trail: one event per call, hash-chained per tenant, details sealed by the tokenizer.
import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import { tenantSchema } from '../store/database.js';
import { AuditEvent } from '../store/entities/tenant.js';
import { query } from '../store/sql.js';
import type { TokenizerClient } from '../tokenizer-client.js';
import { auditBatchSize } from '../metrics.js';
import type { Principal } from './credentials.js';

/** What an operation tells its event. `identity`, `before` and `after` are PII and are sealed. */
export interface AuditNote {
  record?: string;
  mode?: string;
  identity?: string;
  app?: string;
  before?: unknown;
  after?: unknown;
}

export interface AuditDraft {
  uuid: string;
  when: number;
  title: string;
  status: 'ok' | 'error';
  msg: string | null;
  actor: string;
  record: string | null;
  mode: string | null;
  app: string | null;
  details: Record<string, unknown> | null;
}

export const AUDIT_TABLE = 'audit_events';
const MAX_BATCH = 500;

export function draftEvent(
  title: string,
  principal: Principal,
  note: AuditNote,
  outcome: { status: 'ok' | 'error'; msg?: string },
  requestMetadata: unknown,
  now: number,
): AuditDraft {
  const details: Record<string, unknown> = {};
  // The record token names the subject; the identity used to look it up is kept only when nothing was found.
  if (note.identity !== undefined && (note.record === undefined || outcome.status === 'error')) details.identity = note.identity;
  if (note.before !== undefined) details.before = note.before;
  if (note.after !== undefined) details.after = note.after;
  if (requestMetadata !== undefined) details.request_metadata = requestMetadata;
  return {
    uuid: randomUUID(),
    when: now,
    title,
    status: outcome.status,
    msg: outcome.msg ?? null,
    actor: `${principal.kind}:${principal.credentialId}`,
    record: note.record ?? null,
    mode: note.mode ?? null,
    app: note.app ?? null,
    details: Object.keys(details).length ? details : null,
  };
}

/** The text each chain link covers besides the sequence number: every stored field, in a fixed order. */
export function canonical(e: Omit<AuditDraft, 'details'> & { details: Buffer | null }): string {
  return JSON.stringify([e.uuid, e.when, e.title, e.status, e.msg, e.actor, e.record, e.mode, e.app, e.details?.toString('base64') ?? null]);
}

/** The chain link as audit_append() computes it: sha256(previous hash ‖ int8 seq ‖ canonical text). */
export function chainHash(prev: Buffer, seq: number, canon: string): Buffer {
  const seqBytes = Buffer.alloc(8);
  seqBytes.writeBigInt64BE(BigInt(seq));
  return createHash('sha256').update(prev).update(seqBytes).update(canon, 'utf8').digest();
}

export class AuditTrail {
  private readonly queues = new Map<number, { drafts: AuditDraft[]; waiters: { resolve(): void; reject(e: unknown): void }[] }>();
  private readonly flushing = new Set<number>();

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
  ) {}

  /** Writes events in the caller's transaction (if any): they commit or roll back with the change they describe. */
  async writeInTx(em: EntityManager, tenantId: number, drafts: AuditDraft[]): Promise<void> {
    if (drafts.length === 0) return;
    const withDetails = drafts.filter((d) => d.details);
    const sealed = withDetails.length
      ? (
          await this.tokenizer.run(tenantId, {
            seal: withDetails.map((d) => ({ table: AUDIT_TABLE, rowId: d.uuid, plaintext: Buffer.from(JSON.stringify(d.details)) })),
          })
        ).sealed
      : [];
    const sealedBy = new Map(withDetails.map((d, i) => [d.uuid, sealed[i]!]));
    const rows = drafts.map((d) => ({ ...d, details: sealedBy.get(d.uuid) ?? null }));
    // One round trip: the function takes the head lock, chains, inserts and moves the head.
    await query(
      em,
      `select "${tenantSchema(tenantId)}".audit_append($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[],
        $7::uuid[], $8::text[], $9::text[], $10::bytea[], $11::text[])`,
      [
        rows.map((r) => r.uuid), rows.map((r) => r.when), rows.map((r) => r.title), rows.map((r) => r.status),
        rows.map((r) => r.msg), rows.map((r) => r.actor), rows.map((r) => r.record), rows.map((r) => r.mode),
        rows.map((r) => r.app), rows.map((r) => r.details), rows.map((r) => canonical(r)),
      ],
    );
  }

  /**
   * Events of reads and of failed calls: queued and committed together with other requests' events.
   * The promise settles once this event is committed, so no answer leaves before its event is stored.
   */
  record(tenantId: number, draft: AuditDraft): Promise<void> {
    let q = this.queues.get(tenantId);
    if (!q) this.queues.set(tenantId, (q = { drafts: [], waiters: [] }));
    const done = new Promise<void>((resolve, reject) => q.waiters.push({ resolve, reject }));
    q.drafts.push(draft);
    if (!this.flushing.has(tenantId)) void this.flush(tenantId);
    return done;
  }

  private async flush(tenantId: number): Promise<void> {
    this.flushing.add(tenantId);
    try {
      for (;;) {
        const q = this.queues.get(tenantId);
        if (!q || q.drafts.length === 0) break;
        const drafts = q.drafts.splice(0, MAX_BATCH);
        const waiters = q.waiters.splice(0, drafts.length);
        try {
          // A single statement is its own transaction: no BEGIN/COMMIT round trips.
          await this.writeInTx(this.db.forTenant(tenantId), tenantId, drafts);
          auditBatchSize.observe(drafts.length);
          for (const w of waiters) w.resolve();
        } catch (err) {
          this.log.error({ err: { type: (err as Error).name, message: (err as Error).message }, tenantId }, 'audit batch failed');
          for (const w of waiters) w.reject(err);
        }
      }
    } finally {
      this.flushing.delete(tenantId);
      this.queues.delete(tenantId);
    }
  }

  /** Re-computes the tenant's chain; returns the first broken sequence number, or null when intact. */
  async verify(tenantId: number): Promise<number | null> {
    const em = this.db.forTenant(tenantId);
    let prev: Buffer = Buffer.alloc(0);
    let last = 0;
    for (;;) {
      const batch = await em.find(AuditEvent, { seq: { $gt: last } }, { orderBy: { seq: 'asc' }, limit: 1000, disableIdentityMap: true });
      if (batch.length === 0) return null;
      for (const e of batch) {
        const canon = canonical({ ...e, msg: e.msg ?? null, record: e.record ?? null, mode: e.mode ?? null, app: e.app ?? null, status: e.status as 'ok', details: e.details ?? null });
        const expect = chainHash(prev, e.seq, canon);
        if (!expect.equals(e.hash) || e.seq !== last + 1) return e.seq;
        prev = e.hash;
        last = e.seq;
      }
    }
  }
}

export interface AuditRow {
  auditeventuuid: string;
  eventtype: string;
  title: string;
  timestamp: string;
  when: number;
  status: string;
  msg: string | null;
  mode: string | null;
  record: string | null;
  app: string | null;
  more: boolean;
}

export function presentEvent(e: AuditEvent): AuditRow {
  return {
    auditeventuuid: e.uuid,
    eventtype: e.title,
    title: e.title,
    timestamp: new Date(e.when * 1000).toISOString(),
    when: e.when,
    status: e.status,
    msg: e.msg ?? null,
    mode: e.mode ?? null,
    record: e.record ?? null,
    app: e.app ?? null,
    more: Boolean(e.details),
  };
}

/** Audit rows as SQL returns them (bigints as strings), in the entity's shape presentEvent reads. */
function eventOf(r: Record<string, unknown>): AuditEvent {
  return { ...r, seq: Number(r.seq), when: Number(r.when) } as unknown as AuditEvent;
}

const EVENT_COLUMNS = 'seq, uuid, "when", title, status, msg, actor, record, mode, app, details';

/**
 * Reads of the trail: a user's events newest first, and one event with its sealed details opened. Plain SQL
 * through the tenant's manager, so the reads run as the tenant's database role where there is one.
 */
export class AuditReader {
  constructor(private readonly tokenizer: TokenizerClient) {}

  private async page(em: EntityManager, tenantId: number, where: string, params: unknown[], offset: number, limit: number) {
    const table = `"${tenantSchema(tenantId)}".audit_events`;
    const n = params.length;
    const [count] = await query<{ n: number }>(em, `select count(*)::int as n from ${table} ${where}`, params);
    const rows = await query(em, `select ${EVENT_COLUMNS} from ${table} ${where} order by seq desc offset $${n + 1} limit $${n + 2}`, [...params, offset, limit]);
    return { total: Number(count?.n ?? 0), rows: rows.map((r) => presentEvent(eventOf(r))) };
  }

  /** Every event of the tenant, newest first. */
  listAll(em: EntityManager, tenantId: number, offset: number, limit: number) {
    return this.page(em, tenantId, '', [], offset, limit);
  }

  listForRecord(em: EntityManager, tenantId: number, record: string, offset: number, limit: number) {
    return this.page(em, tenantId, 'where record = $1', [record], offset, limit);
  }

  async get(em: EntityManager, tenantId: number, uuid: string) {
    const [row] = await query(em, `select ${EVENT_COLUMNS} from "${tenantSchema(tenantId)}".audit_events where uuid = $1`, [uuid]);
    if (!row) return null;
    const e = eventOf(row);
    let details: Record<string, unknown> = {};
    if (e.details) {
      const [plain] = (await this.tokenizer.run(tenantId, { open: [{ table: AUDIT_TABLE, rowId: e.uuid, ciphertext: e.details }] })).opened;
      details = JSON.parse(plain!.toString('utf8')) as Record<string, unknown>;
    }
    return { ...presentEvent(e), details };
  }
}
