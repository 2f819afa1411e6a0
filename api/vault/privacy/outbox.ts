// The outbox's writing side: a call's privacy events go into the tenant's outbox in the statement that queues its
// audit event (a write's: they commit or roll back with the change), or in one statement of their own (a read's, a
// job's). The dispatcher is told once they committed.
import type { Stores } from '../../store/stores.js';
import type { Events } from '../events.js';
import { publishRows, type PrivacyEventDraft } from './events.js';

/** A call's events as `events_publish` takes them, and when confirmations of any erasure among them fall due. */
export interface OutboxBatch {
  rows: string;
  due: number;
}

export class Outbox {
  constructor(
    /** How long recipients have to confirm an erasure (seconds). */
    private readonly confirmSeconds: number,
    private readonly events: Events,
  ) {}

  /** The events as one batch for the write's statement; undefined when there are none. */
  batch(drafts: readonly PrivacyEventDraft[], nowSeconds: number): OutboxBatch | undefined {
    if (!drafts.length) return undefined;
    return { rows: publishRows(drafts, Date.now()), due: nowSeconds + this.confirmSeconds };
  }

  /** Events written in a statement of their own (committed when it returns, unless `stores` is a transaction's). */
  async publish(stores: Stores, drafts: readonly PrivacyEventDraft[], nowSeconds: number): Promise<void> {
    const batch = this.batch(drafts, nowSeconds);
    if (!batch) return;
    await stores.privacyEvents.publish(batch.rows, batch.due);
  }

  /** Events of `tenantId` committed: its dispatcher may deliver them now. */
  committed(tenantId: number): void {
    this.events.emit('privacyEventsCommitted', { tenantId });
  }
}
