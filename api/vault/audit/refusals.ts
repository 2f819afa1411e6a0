// Calls refused for their credential (missing, unknown, expired or revoked token): recorded in the tenant they named,
// else in the main tenant's trail, with the operation, the reason and the client's address (sealed), within a budget
// per second and process, so that a flood cannot fill the disk; past the budget they are counted and dropped.
import type { Logger } from 'pino';
import { refusalsAudited } from '../../metrics.js';
import { refusalDraft, RefusalBudget, type AuditDraft } from './note.js';

/** Events of calls refused for their credential, per second and process (a burst of as many is allowed). */
const REFUSALS_PER_SECOND = 50;

export class RefusalRecorder {
  private readonly budget = new RefusalBudget(REFUSALS_PER_SECOND);

  constructor(
    /** How an event reaches the trail (the trail's `record`). */
    private readonly recordEvent: (tenantId: number, draft: AuditDraft) => Promise<void>,
    private readonly log: Logger,
  ) {}

  async record(tenantId: number, operation: string, reason: string, request: { address: string; requestId: string | null }): Promise<void> {
    const now = Date.now();
    if (!this.budget.take(now)) {
      refusalsAudited.inc({ outcome: 'dropped' });
      return;
    }
    await this.recordEvent(tenantId, refusalDraft(operation, reason, request, now));
    refusalsAudited.inc({ outcome: 'recorded' });
    this.log.info({ tenantId, operation, reason }, 'call refused for its credential');
  }
}
