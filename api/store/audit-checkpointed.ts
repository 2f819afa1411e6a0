// SQL for how far a tenant's audit trail is checkpointed (Tenant0011AuditCheckpointed), beside its committed head.
// What every replica reads to decide whether a checkpoint is due; moved only by the replica that wrote one.
import { TenantTables } from './tenant-tables.js';

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

  /** Records the head just checkpointed. As the vault's own user: the tenant's role may only read the table. */
  async mark(seq: number, link: Buffer, time: number): Promise<void> {
    await this.asVault(`update ${this.t}.audit_checkpointed set seq = $1, link = $2, "time" = $3 where id = 1`, [seq, link, time]);
  }
}
