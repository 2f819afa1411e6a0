// Queued events the chainer will not link: those whose MAC the tokenizer refused (not queued by this vault), those
// whose uuid is in the trail already (a linked row queued again: a replay), and those whose details are larger than
// any the vault writes (the tokenizer could not even take them to check). Both leave the queue for
// audit_refused, kept as evidence, logged and counted; the trail goes on without them.
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import { auditQueueRefused } from '../../metrics.js';
import type { QueuedEvent } from '../../store/audit.js';

export type RefusedWhy = 'mac' | 'replayed' | 'oversize';

const SAID: Record<RefusedWhy, string> = {
  mac: 'queued audit events refused: their MAC does not hold (not queued by this vault); never linked',
  replayed: 'queued audit events refused: their uuid is in the trail already (a linked event queued again); never linked twice',
  oversize: 'queued audit events refused: their details are larger than any event of this vault (MAX_QUEUED_DETAILS); never linked',
};

/** Moves `uuids` out of the queue into audit_refused; if that fails they stay queued, and are refused again later. */
export async function refuseQueued(db: Database, log: Logger, tenantId: number, uuids: readonly string[], why: RefusedWhy): Promise<void> {
  if (!uuids.length) return;
  auditQueueRefused.inc({ tenant: String(tenantId) }, uuids.length);
  log.error({ tenantId, refused: uuids, why }, SAID[why]);
  await db.stores(tenantId).audit.refuse(uuids, Math.floor(Date.now() / 1000)).catch((err: unknown) =>
    log.error({ tenantId, err: { type: (err as Error).name, message: (err as Error).message } }, 'refused audit events not moved to audit_refused'),
  );
}

/** Whether the chainer may link a queued row: neither in the trail already nor larger than any event of the vault's. */
export function linkable(q: QueuedEvent): boolean {
  return !q.chained && !q.oversize;
}

/** Refuses the queued rows a batch read and may not link (`linkable`): replayed ones, then oversize ones. */
export async function refuseUnlinkable(db: Database, log: Logger, tenantId: number, queued: readonly QueuedEvent[]): Promise<void> {
  await refuseQueued(db, log, tenantId, queued.filter((q) => q.chained).map((q) => q.uuid), 'replayed');
  await refuseQueued(db, log, tenantId, queued.filter((q) => q.oversize && !q.chained).map((q) => q.uuid), 'oversize');
}
