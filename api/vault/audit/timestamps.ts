// RFC 3161 timestamps of signed checkpoints (STRONGROOM_AUDIT_TSA_URL): each checkpoint's imprint (its signed message
// and signature) is stamped by an independent authority, so not even the holder of the checkpoint key can back-date
// a rewrite. The token is stored beside the checkpoint (audit_checkpoints) and sent to the audit sinks; a checkpoint
// whose token could not be had is asked again at every checkpoint pass, never skipped (a metric counts them).
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import type { CheckpointLine } from '../../../proto/audit-checkpoint.js';
import { auditTimestamps, auditUntimed } from '../../metrics.js';
import { checkpointImprint, requestTimestamp } from './tsa.js';

/** Checkpoints stamped per tenant per pass, oldest first. */
const PER_PASS = 100;

export class CheckpointStamper {
  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly tsa: { url: string; timeoutMs: number },
  ) {}

  /** Stamps one checkpoint and stores its token; false (logged, counted) when the authority could not be had. */
  async stamp(tenantId: number, line: CheckpointLine): Promise<boolean> {
    try {
      const token = await requestTimestamp(this.tsa.url, checkpointImprint(line), { timeoutMs: this.tsa.timeoutMs });
      await this.db.stores(tenantId).auditCheckpointed.timestamped(line.seq, token);
      auditTimestamps.inc({ outcome: 'stamped' });
      return true;
    } catch (err) {
      auditTimestamps.inc({ outcome: 'failed' });
      this.log.warn({ tenantId, seq: line.seq, err: { type: (err as Error).name, message: (err as Error).message } }, 'audit checkpoint not timestamped yet: asked again at the next pass');
      return false;
    }
  }

  /** Stamps the tenant's checkpoints still without a token, oldest first, until one fails. */
  async stampPending(tenantId: number): Promise<void> {
    const store = this.db.stores(tenantId).auditCheckpointed;
    const untimed = await store.untimed(PER_PASS);
    let left = untimed.length;
    for (const line of untimed) {
      if (!(await this.stamp(tenantId, line))) break;
      left--;
    }
    auditUntimed.set({ tenant: String(tenantId) }, left);
  }
}
