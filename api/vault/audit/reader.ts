// Reads of the audit trail: pages of events, and one event with its sealed details opened.
import type { Stores } from '../../store/stores.js';
import { TokenizerRejectedError, type TokenizerClient } from '../../tokenizer-client.js';
import type { PersonKey, SubjectKeys } from '../subject-keys.js';
import { AUDIT_TABLE, keptBeforeOf, openedDetails, presentEvent, type KeptBefore } from './note.js';
import type { Users } from '../users.js';
import { HOUSEKEEPING_LIKE } from './actor.js';
import { AlteredRecordError, Messages } from '../../errors.js';

/**
 * Reads of the trail: a user's events newest first, and one event with its sealed details opened. Plain SQL
 * through the tenant's stores, so the reads run as the tenant's database role where there is one.
 */
export class AuditReader {
  constructor(
    private readonly tokenizer: TokenizerClient,
    private readonly keys: SubjectKeys,
    private readonly users: Users,
  ) {}

  /**
   * Every event of the tenant, newest first; the console's housekeeping (actor.ts) only with `housekeeping`. A
   * person's events need no such filter: an event that names a person is never housekeeping.
   */
  async listAll(stores: Stores, page: { offset: number; limit: number; housekeeping: boolean }) {
    const { total, rows } = await stores.audit.page(null, page.offset, page.limit, page.housekeeping ? undefined : HOUSEKEEPING_LIKE);
    return { total, rows: rows.map(presentEvent) };
  }

  async listForRecord(stores: Stores, record: string, offset: number, limit: number) {
    const { total, rows } = await stores.audit.page(record, offset, limit);
    return { total, rows: rows.map(presentEvent) };
  }

  /**
   * The event with its details. Those of an erased person answer as erased: the event's non-personal facts
   * (operation, time, actor, status, the person's token) stay, and `details` is `{ erased: true }`.
   */
  async get(stores: Stores, uuid: string) {
    const { tenantId } = stores;
    const e = await stores.audit.byUuid(uuid);
    if (!e) return null;
    const shown = presentEvent(e);
    // The address was sealed with the details: gone with the person.
    const erasedEvent = { ...shown, more: false, who: { ...shown.who, address: null }, details: { erased: true } };
    const wrapped = e.record ? (await stores.subjectKeys.get([e.record])).get(e.record) : undefined;
    // A person erased: their key is a tombstone.
    if (wrapped === null) return erasedEvent;
    let details: Record<string, unknown> = {};
    if (e.details) {
      // Under the person's key while they live; details about no person under the tenant's own key.
      const key = wrapped ? { subject: e.record!, wrapped } : await this.keys.tenantKey(tenantId);
      let plain: Buffer;
      try {
        [plain] = (await this.tokenizer.run(tenantId, { open: [{ table: AUDIT_TABLE, rowId: e.uuid, ciphertext: e.details, key }] })).opened as [Buffer];
      } catch (err) {
        // About a person whose key the key table no longer holds at all (a restored backup): erased.
        if (err instanceof TokenizerRejectedError && e.record && wrapped === undefined) return erasedEvent;
        // A key or details that do not open (swapped or changed by a database writer): 409 recordAltered, not a 500.
        throw err instanceof TokenizerRejectedError ? new AlteredRecordError(Messages.recordAltered) : err;
      }
      const sealed = JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
      const version = keptBeforeOf(sealed);
      details = openedDetails(sealed, version === undefined || !wrapped ? 'pruned' : await this.keptBefore(stores, { subject: e.record!, wrapped }, version));
    }
    return withAddress(presentEvent(e), details);
  }

  /**
   * The document kept as `version` of the person (or live at it still: a failed change names the version the profile
   * stayed at), or why there is none: pruned, or altered (gone out of turn, or it does not open).
   */
  private async keptBefore(stores: Stores, key: PersonKey & { subject: string }, version: number): Promise<KeptBefore> {
    const kept = (await stores.users.version(key.subject, version)) ?? (await liveAt(stores, key.subject, version));
    // Pruning drops the oldest versions first: one gone while an older one is kept was removed some other way.
    if (!kept) return (await stores.users.keepsVersionBelow(key.subject, version)) ? 'altered' : 'pruned';
    try {
      return { document: await this.users.openVersion(stores.tenantId, key, version, kept.profile) };
    } catch (err) {
      if (err instanceof AlteredRecordError) return 'altered';
      throw err;
    }
  }
}

/** The person's live row when it is at `version` (the version a failed change left it at), else null. */
async function liveAt(stores: Stores, token: string, version: number): Promise<{ profile: Buffer } | null> {
  const live = await stores.users.byToken(token, 0);
  return live?.version === version ? live : null;
}

/** The client's address, kept in the sealed details, shown as part of `who` (and no longer among the details). */
function withAddress(shown: ReturnType<typeof presentEvent>, opened: Record<string, unknown>) {
  const { address, ...details } = opened;
  return { ...shown, who: { ...shown.who, address: typeof address === 'string' ? address : null }, details };
}
