// The approval workflow (CONTRACT §4.7): a person (or a service for them) asks for a change; an admin approves
// it, which carries the stored change out, or either side cancels it. Proposed changes are sealed.
import { anyChanged, changedFields, erased, type PrivacyEventDraft } from './privacy/events.js';
import { randomUUID } from 'node:crypto';
import type { Sealer } from './sealed.js';
import type { FoundUser, Users } from './users.js';
import type { Asked, Scope } from './scope.js';
import type { Appdata } from './appdata.js';
import type { Consent } from './consent.js';
import type { RequestRow } from '../store/requests.js';
import { badRequest, conflict, forbidden, notFound, Messages } from '../errors.js';
import { applyProfilePatch, type PatchOperation } from './profile-patch.js';
import { mergedCopy } from './merge-patch.js';
import type { AuditNote } from './audit/note.js';

export type RequestType = 'forget-me' | 'change-profile' | 'change-app-data' | 'agreement-withdraw';

/** What approving does: merge a profile or app record, patch a profile, or nothing beyond the type itself. */
export type Change = { profile: Record<string, unknown> } | { patch: PatchOperation[] } | { appdata: Record<string, unknown> } | null;

const REQUESTS_TABLE = 'user_requests';

/** Open requests one person may have waiting at once: each holds a sealed change until an admin decides. */
export const MAX_OPEN_REQUESTS = 10;
/** The largest change a request may hold, as canonical JSON. */
export const MAX_CHANGE_BYTES = 64 * 1024;
const TOO_MANY_OPEN = `The user has ${MAX_OPEN_REQUESTS} open requests: approve or cancel some first`;

/** A request's AAD row: the request and its type; the key's subject binds the person. */
function requestRowId(requestuuid: string, type: string): string {
  return `${requestuuid}:${type}`;
}

/** JSON with object keys sorted, so equal changes have equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export class UserRequests {
  constructor(
    private readonly sealer: Sealer,
    private readonly users: Users,
    private readonly appdata: Appdata,
    private readonly consent: Consent,
  ) {}


  /**
   * Opens a request, or answers the identical open one (same person, type, app, brief and change). A change over
   * MAX_CHANGE_BYTES is a 400 naming its field; a person with MAX_OPEN_REQUESTS open is a 409. The caller holds
   * the person's row locked, so racing requests of one person are counted one at a time. `hash` is the request's
   * keyed fingerprint: what the audit event keeps instead of the change.
   */
  async open(
    scope: Scope,
    token: string,
    type: RequestType,
    target: { appname?: string | undefined; brief?: string | undefined },
    change: Change,
  ): Promise<{ requestuuid: string; existed: boolean; hash: string; bytes: number }> {
    const appname = target.appname ?? null;
    const brief = target.brief ?? null;
    const text = canonical(change);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (change !== null && bytes > MAX_CHANGE_BYTES) throw badRequest(`Invalid API request parameter: ${Object.keys(change)[0]}: the change is larger than ${MAX_CHANGE_BYTES / 1024} KB`);
    const fingerprint = await this.sealer.fingerprint(scope.tenantId, `request\0${token}\0${type}\0${appname ?? ''}\0${brief ?? ''}\0${text}`);
    const store = scope.stores.requests;
    const same = await store.openWith(token, fingerprint);
    if (same) return { requestuuid: same, existed: true, hash: fingerprint, bytes };
    // Only requests that carry a change count: asking to be forgotten or to withdraw consent is never held back
    // (and each is one open request at most, as identical requests are one).
    if (change !== null && (await store.openCount(token)) >= MAX_OPEN_REQUESTS) throw conflict(TOO_MANY_OPEN);
    const requestuuid = randomUUID();
    const sealed = change === null ? null : await this.sealer.sealFor(scope, token, { table: REQUESTS_TABLE, rowId: requestRowId(requestuuid, type) }, change);
    const opened = await store.open({ requestuuid, user_token: token, requesttype: type, appname, brief, change: sealed, fingerprint, creationtime: scope.now });
    return { ...opened, hash: fingerprint, bytes };
  }

  /** The request, or 404; a login xtoken sees only its own person's requests. */
  async get(scope: Asked, uuid: string, forUpdate = false): Promise<RequestRow> {
    const row = await scope.stores.requests.get(uuid.toLowerCase(), forUpdate);
    if (!row) throw notFound(Messages.requestNotFound);
    if (scope.principal?.kind === 'login' && row.user_token !== scope.principal.userToken) throw forbidden();
    return row;
  }

  async change(scope: Scope, row: RequestRow): Promise<Change> {
    return row.change ? this.sealer.openFor<Change>(scope, row.user_token, REQUESTS_TABLE, requestRowId(row.requestuuid, row.requesttype), row.change) : null;
  }

  /**
   * Carries out the stored change in the caller's transaction, then closes the request as approved. A profile
   * change reaches its person through `person` (the operation's door: ops/subject.ts, which judges them). Answers the
   * request as closed and the privacy events of the change it made. `note` is the operation's event: it names the
   * request's person and the request as soon as it is read, so an approval that fails is in the person's trail too,
   * and a profile change is noted as UserUpdate notes one (ops/subject.ts).
   */
  async approve(scope: Asked, uuid: string, reason: string, person: (token: string) => Promise<FoundUser>, note: AuditNote): Promise<Approved> {
    const row = await this.get(scope, uuid, true);
    note.record = row.user_token;
    note.request = { requestuuid: row.requestuuid, requesttype: row.requesttype, status: row.status };
    if (row.status !== 'open') throw conflict(Messages.requestClosed);
    const change = await this.change(scope, row);
    const events: PrivacyEventDraft[] = [{ type: 'request.approved', person: row.user_token, data: { request: row.requestuuid, action: row.requesttype } }];
    switch (row.requesttype as RequestType) {
      case 'forget-me':
        // The person goes with their key; the request's own record stays, closed, without personal data, so
        // that the person and the regulator can see it was carried out.
        await this.users.remove(scope, row.user_token);
        events.push(erased(row.user_token, row.requestuuid));
        break;
      case 'change-profile': {
        const user = await person(row.user_token);
        const next =
          change && 'patch' in change
            ? applyProfilePatch(user.profile, change.patch, this.users.maxBytes)
            : (mergedCopy(user.profile, change && 'profile' in change ? change.profile : {}) as Record<string, unknown>);
        note.before = user.profile;
        note.after = next;
        if (this.users.keepsVersions) note.beforeKept = user.row.version;
        await this.users.replace(scope, user, next);
        const changed = changedFields(user.profile, next);
        if (anyChanged(changed)) events.push({ type: 'person.updated', person: row.user_token, data: { ...changed, request: row.requestuuid } });
        break;
      }
      case 'change-app-data':
        await this.appdata.merge(scope, row.user_token, row.appname!, change && 'appdata' in change ? change.appdata : {}, { create: true });
        events.push({ type: 'appdata.updated', person: row.user_token, data: { app: row.appname!, request: row.requestuuid } });
        break;
      case 'agreement-withdraw':
        await this.consent.cancel(scope, row.user_token, row.brief!);
        events.push({ type: 'consent.withdrawn', person: row.user_token, data: { brief: row.brief!, request: row.requestuuid } });
        break;
    }
    await scope.stores.requests.close(row.requestuuid, 'approved', reason, scope.now);
    note.request.status = 'approved';
    return { row: { ...row, status: 'approved', reason }, events };
  }

  async cancel(scope: Asked, uuid: string, reason: string): Promise<RequestRow> {
    const row = await this.get(scope, uuid, true);
    if (row.status !== 'open') throw conflict(Messages.requestClosed);
    await scope.stores.requests.close(row.requestuuid, 'canceled', reason, scope.now);
    return { ...row, status: 'canceled', reason };
  }
}

/** A request as lists show it. */
export function presentRequest(r: RequestRow) {
  return {
    requestuuid: r.requestuuid,
    requesttype: r.requesttype,
    status: r.status,
    token: r.user_token,
    ...(r.appname !== null ? { appname: r.appname } : {}),
    ...(r.brief !== null ? { brief: r.brief } : {}),
    ...(r.reason !== null ? { reason: r.reason } : {}),
    creationtime: r.creationtime,
    when: r.updated,
  };
}

/** An approval: the request as closed, and the privacy events of its change. */
export interface Approved {
  row: RequestRow;
  events: PrivacyEventDraft[];
}
