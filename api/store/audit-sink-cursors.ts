// SQL for the audit sinks' cursors (Global0011AuditSinkCursors): per sink and tenant, the last event and the last
// checkpoint the sink acknowledged.
import { GlobalTables } from './global-tables.js';

export interface SinkCursor {
  seq: number;
  checkpointSeq: number;
}

export class AuditSinkCursorStore extends GlobalTables {
  /** A sink's cursor in a tenant's trail (both 0 before it sent anything). */
  async get(sink: string, tenantId: number): Promise<SinkCursor> {
    const [r] = await this.sql<{ seq: string; checkpoint_seq: string }>(`select seq, checkpoint_seq from ${this.g}.audit_sink_cursors where sink = $1 and tenant_id = $2`, [sink, tenantId]);
    return { seq: Number(r?.seq ?? 0), checkpointSeq: Number(r?.checkpoint_seq ?? 0) };
  }

  /** Moves a sink's cursor forward (never back: two exporters' late writes cannot undo a later one). */
  async advance(sink: string, tenantId: number, to: SinkCursor, now: number): Promise<void> {
    await this.sql(
      `insert into ${this.g}.audit_sink_cursors (sink, tenant_id, seq, checkpoint_seq, updated) values ($1, $2, $3, $4, $5)
       on conflict (sink, tenant_id) do update set seq = greatest(audit_sink_cursors.seq, excluded.seq),
         checkpoint_seq = greatest(audit_sink_cursors.checkpoint_seq, excluded.checkpoint_seq), updated = excluded.updated`,
      [sink, tenantId, to.seq, to.checkpointSeq, now],
    );
  }
}
