// Who made an audit event: the credential (kind, xtoken id, role, person), the request's id and whether the call was
// the console's housekeeping, written into the event's `actor` text, which the chain already covers; the client's
// address goes into the sealed details. The text is `<kind>:<xtoken id>` (what every event before this held, and
// still the whole text of old events, `unauthenticated` refusals and `system:` jobs), then, for new events, one space
// and a JSON object of the rest. The tokenizer links whatever the text says: nothing about it changes there.
import type { Principal } from '../credentials.js';

/** What the http layer knows of a request. */
export interface RequestFacts {
  /** The request's id, as answered in X-Request-Id (api/http/server.ts). */
  requestId: string | null;
  /** The client's address (api/http/client-address.ts): sealed with the event's details, never in the clear. */
  address: string | null;
  /** The caller says the call is its own housekeeping (`X-Strongroom-Purpose: housekeeping`). */
  housekeeping: boolean;
}

/** The caller of one call, as its event records it. */
export interface Actor {
  principal: Principal;
  /** The role's name at the time of the call (role xtokens), or null. */
  rolename: string | null;
  request: RequestFacts;
  /** The operation is one that may be housekeeping (ops/housekeeping.ts): honoured only if its event names nobody. */
  housekeepingAllowed: boolean;
}

/** A call marked housekeeping and honoured (`housekeeping`), or marked and refused because it reached a person. */
export type Purpose = 'housekeeping' | 'housekeeping-refused';

/** The `who` of an event, as the audit operations answer it. Absent facts are null (always, for old events). */
export interface Who {
  /** root, tenant-admin, role, login, public; `unauthenticated` for refused credentials, `system` for the vault's jobs. */
  kind: string;
  /** The credential's id (what the xtoken lists and XTokenRevoke name), never its secret or hash. */
  xtokenid: string | null;
  roleid: number | null;
  rolename: string | null;
  /** The person a login xtoken belongs to (their token). */
  person: string | null;
  requestid: string | null;
  purpose: Purpose | null;
  /** The client's address: only where the event's sealed details are opened (AuditGetEvent). */
  address?: string | null;
}

/** The credential kinds whose id part is an xtoken id. */
const CREDENTIAL_KINDS = new Set(['root', 'tenant-admin', 'role', 'login']);

/**
 * What `actor` texts of honoured housekeeping events contain, as a LIKE pattern. The JSON object follows the only
 * space of the text and, when it has a purpose, starts with it; a value inside JSON cannot hold an unescaped quote,
 * so no role name or request id can forge it.
 */
export const HOUSEKEEPING_LIKE = '% {"purpose":"housekeeping"%';

/** The purpose an event records: housekeeping only for a call that may be and that named nobody. */
export function purposeOf(actor: Pick<Actor, 'request' | 'housekeepingAllowed'>, namesSomeone: boolean): Purpose | null {
  if (!actor.request.housekeeping) return null;
  return actor.housekeepingAllowed && !namesSomeone ? 'housekeeping' : 'housekeeping-refused';
}

/** The event's `actor` text. */
export function actorText(actor: Actor, purpose: Purpose | null): string {
  const { principal: p, rolename, request } = actor;
  // Keys in a fixed order, purpose first (HOUSEKEEPING_LIKE relies on it); absent facts left out.
  const facts: Record<string, unknown> = {};
  if (purpose) facts.purpose = purpose;
  if (p.kind === 'role') Object.assign(facts, { roleid: p.roleId, rolename });
  if (p.kind === 'login' && p.userToken) facts.person = p.userToken;
  if (request.requestId) facts.requestid = request.requestId;
  return `${p.kind}:${p.credentialId} ${JSON.stringify(facts)}`;
}

/** The `actor` text of an event with no credential behind it (a refused one), with the request's id. */
export function anonymousActorText(kind: 'unauthenticated', requestId: string | null): string {
  return requestId ? `${kind} ${JSON.stringify({ requestid: requestId })}` : kind;
}

/** The `who` of an `actor` text, old or new. Anything it cannot read is left null, never guessed. */
export function whoOf(text: string): Who {
  const space = text.indexOf(' ');
  const head = space < 0 ? text : text.slice(0, space);
  const colon = head.indexOf(':');
  const kind = colon < 0 ? head : head.slice(0, colon);
  const id = colon < 0 ? '' : head.slice(colon + 1);
  const facts = space < 0 ? {} : factsOf(text.slice(space + 1));
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const purpose = facts.purpose === 'housekeeping' || facts.purpose === 'housekeeping-refused' ? facts.purpose : null;
  return {
    kind,
    xtokenid: CREDENTIAL_KINDS.has(kind) && id ? id : null,
    roleid: Number.isSafeInteger(facts.roleid) ? (facts.roleid as number) : null,
    rolename: str(facts.rolename),
    person: str(facts.person),
    requestid: str(facts.requestid),
    purpose,
  };
}

function factsOf(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The actor of a call. The role's name is read from the roles' cache; if it cannot be read (the role gone, the
 * database away), the event still records the role's id.
 */
export async function actorOf(
  roles: { statementsOf(roleId: number): Promise<{ rolename: string } | null> },
  principal: Principal,
  request: RequestFacts,
  housekeepingAllowed = false,
): Promise<Actor> {
  const rolename = principal.kind === 'role' && principal.roleId !== null ? ((await roles.statementsOf(principal.roleId).catch(() => null))?.rolename ?? null) : null;
  return { principal, rolename, request, housekeepingAllowed };
}

/** Request facts when nothing is known of the request (a job's own call). */
export const NO_REQUEST: RequestFacts = { requestId: null, address: null, housekeeping: false };
