// SQL for how far a tenant's audit trail is checkpointed (Tenant0011AuditCheckpointed), beside its committed head.
// What every replica reads to decide whether a checkpoint is due; moved only by the replica that wrote one.
import { TenantTables } from './tenant-tables.js';
import type { CheckpointLine } from '../../proto/audit-checkpoint.js';

/** The committed head and the last checkpointed one, read together (one snapshot). */
export interface CheckpointDistance {
  head: { seq: number; hash: Buffer; digest: Buffer };
  checkpointed: { seq: number; link: Buffer; time: number };
}

export class AuditCheckpointedStore extends TenantTables {
  async distance(): Promise<CheckpointDistance> {
    const [r] = await this.sql<{ seq: string; hash: Buffer; digest: Buffer; cseq: string; clink: Buffer; ctime: string }>(
      `select h.seq, h.hash, h.digest, c.seq as cseq, c.link as clink, c."time" as ctime
       from ${this.t}.audit_head h cross join ${this.t}.audit_checkpointed c where h.id = 1 and c.id = 1`,
    );
    return {
      head: { seq: Number(r!.seq), hash: r!.hash, digest: r!.digest },
      checkpointed: { seq: Number(r!.cseq), link: r!.clink, time: Number(r!.ctime) },
    };
  }

  /** Keeps a signed checkpoint line (for the audit sinks), once: a second keep of the same sequence is a no-op. */
  async keep(line: CheckpointLine, now: number): Promise<void> {
    await this.asVault(`insert into ${this.t}.audit_checkpoints (seq, line, created) values ($1, $2, $3) on conflict (seq) do nothing`, [line.seq, JSON.stringify(line), now]);
  }

  /** Kept checkpoints after `seq` up to `upTo`, oldest first, with their timestamp tokens (null: none yet). */
  async linesBetween(seq: number, upTo: number, limit: number): Promise<{ line: CheckpointLine; timestamp: Buffer | null }[]> {
    const rows = await this.sql<{ line: CheckpointLine; timestamp: Buffer | null }>(
      `select line, timestamp from ${this.t}.audit_checkpoints where seq > $1 and seq <= $2 order by seq limit $3`,
      [seq, upTo, limit],
    );
    return rows.map((r) => ({ line: r.line, timestamp: r.timestamp ?? null }));
  }

  /** The first kept checkpoint at or after `seq`, with its timestamp token; null when none is kept yet. */
  async covering(seq: number): Promise<{ line: CheckpointLine; timestamp: Buffer | null } | null> {
    const [r] = await this.sql<{ line: CheckpointLine; timestamp: Buffer | null }>(
      `select line, timestamp from ${this.t}.audit_checkpoints where seq >= $1 order by seq limit 1`,
      [seq],
    );
    return r ? { line: r.line, timestamp: r.timestamp ?? null } : null;
  }

  /** Kept checkpoints still without a timestamp token, oldest first. */
  async untimed(limit: number): Promise<CheckpointLine[]> {
    return (await this.sql<{ line: CheckpointLine }>(`select line from ${this.t}.audit_checkpoints where timestamp is null order by seq limit $1`, [limit])).map((r) => r.line);
  }

  /** Stores a checkpoint's timestamp token. As the vault's own user. */
  async timestamped(seq: number, token: Buffer): Promise<void> {
    await this.asVault(`update ${this.t}.audit_checkpoints set timestamp = $2 where seq = $1 and timestamp is null`, [seq, token]);
  }

  /** Records the head just checkpointed. As the vault's own user: the tenant's role may only read the table. */
  async mark(seq: number, link: Buffer, time: number): Promise<void> {
    await this.asVault(`update ${this.t}.audit_checkpointed set seq = $1, link = $2, "time" = $3 where id = 1`, [seq, link, time]);
  }
}
