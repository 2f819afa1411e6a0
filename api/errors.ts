// The vault's error catalogue, usable from every layer: each error has a fixed HTTP status and a message that is
// safe to show. The HTTP edge (http/envelope.ts) only maps them to answers.
// Every VaultError is meant for the client: its message is the contract's words and safe to show. Anything
// else thrown is an internal failure, which the HTTP edge answers as `Internal error` and logs.
export abstract class VaultError extends Error {
  abstract readonly status: number;
}

export class BadRequestError extends VaultError {
  readonly status = 400;
}
export class ForbiddenError extends VaultError {
  readonly status = 403;
}
/**
 * A call whose credential is missing, unknown, expired or revoked: 403, the reason kept for the trail. A missing
 * header says so (`missing X-Bunker-Token header`, the contract's v1 words): it reveals nothing about any token, and
 * it is the mistake a first caller makes. Every token that does not work is `Access denied` alike.
 */
export class AuthenticationError extends ForbiddenError {
  constructor(readonly reason: 'missing token' | 'malformed token' | 'unknown or revoked token' | 'expired token') {
    super(reason === 'missing token' ? 'missing X-Bunker-Token header' : 'Access denied');
  }
}
export class NotFoundError extends VaultError {
  readonly status = 404;
}
export class ConflictError extends VaultError {
  readonly status = 409;
}
/** A stored profile (or one of its kept versions) that does not open as what it is stored as: a database writer's. */
export class AlteredRecordError extends ConflictError {}
/** A request body arriving slower than the minimum upload rate: cut, so a slow client holds no slot. */
export class RequestTimeoutError extends VaultError {
  readonly status = 408;
}
export class PayloadTooLargeError extends VaultError {
  readonly status = 413;
}
/** A request body that is not sent as JSON (`Content-Type: application/json`): the vault reads no other. */
export class UnsupportedMediaTypeError extends VaultError {
  readonly status = 415;
}
/** Too many calls from one client, for one tenant or at one person's login: try again after `retryAfter` seconds. */
export class TooManyRequestsError extends VaultError {
  readonly status = 429;
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super(message);
  }
}
/** A dependency (database, tokenizer) is down: the request may succeed later. */
export class UnavailableError extends VaultError {
  readonly status = 503;
}

/**
 * The tenant's own key-encryption key is revoked, removed from the HSM or out of reach: every read of the tenant
 * fails closed (never a 500, never ciphertext) while other tenants serve. Retryable: an HSM that was away comes back.
 */
export class TenantKeyUnavailableError extends UnavailableError {
  readonly retryAfter = 30;
  constructor() {
    super(Messages.tenantKeyUnavailable);
  }
}

export const badRequest = (message: string) => new BadRequestError(message);
export const forbidden = (message = 'Access denied') => new ForbiddenError(message);
export const notFound = (message: string) => new NotFoundError(message);
export const conflict = (message: string) => new ConflictError(message);

/** Messages the contract fixes word for word. */
export const Messages = {
  accessDenied: 'Access denied',
  missingToken: 'missing X-Bunker-Token header',
  unknownOperation: 'The API request was not found',
  unknownEndpoint: 'endpoint is missing',
  userNotFound: 'The user record was not found',
  userExists: 'The user record already exists',
  appNotFound: 'The app record was not found',
  badMode: 'The mode parameter has an incorrect format: use login, token, email, phone or custom',
  badUuid: 'Bad UUID',
  badBody: 'Failed to decode the request body',
  protoKey: 'The request body may not contain a field named __proto__',
  notJson: 'The request body must be JSON, sent with Content-Type: application/json',
  badUnlock: 'The unlockuuid value was not found or is not valid',
  listUsersDisabled: 'BulkListUsers is disabled',
  auditNotFound: 'The audit event was not found',
  versionNotFound: 'The user record version was not found',
  recordAltered: 'The stored record does not open: it was altered in the database',
  versionsAltered: "The user's kept versions were altered in the database: the version this change would keep is taken",
  tooLarge: 'The request body is too large',
  tooManyRequests: 'Too many requests',
  busy: 'The vault is busy: try again shortly',
  tooSlow: 'The request body is arriving too slowly',
  tokenNotFound: 'Token not found',
  duplicateTenant: 'Duplicate tenant name',
  tenantNotFound: 'The tenant record was not found',
  duplicateRole: 'The role record already exists',
  roleNotFound: 'The role record was not found',
  duplicatePolicy: 'The policy record already exists',
  policyNotFound: 'The policy record was not found',
  apiDenied: 'API access denied',
  masterKeyMismatch: 'Master key mismatch',
  keyringMismatch: 'The keyring does not match this database',
  tenantKeyUnavailable: 'The tenant\'s key is unavailable',
  mainTenantKek: 'Invalid API request parameter: kek: the main tenant cannot have a key-encryption key of its own (losing it would lock out the management plane)',
  legacyMigrating: 'This tenant\'s data is being upgraded to per-person keys: try again shortly',
  wrappingKeyRootOnly: 'Only the main tenant admin can generate wrapping keys',
  groupNotFound: 'The group record was not found',
  duplicateGroup: 'The group record already exists',
  notMember: 'The user is not a member of this group',
  legalBasisNotFound: 'The legal basis record was not found',
  duplicateLegalBasis: 'The legal basis record already exists',
  legalBasisInactive: 'The legal basis is not active',
  agreementNotFound: 'The agreement record was not found',
  activityNotFound: 'The processing activity record was not found',
  duplicateActivity: 'The processing activity record already exists',
  sessionNotFound: 'The session record was not found',
  sharedRecordNotFound: 'The shared record was not found',
  requestNotFound: 'The user request was not found',
  requestClosed: 'This user request is closed',
  /** Followed by the names of the missing fields. */
  missing: 'Missing API request parameters: ',
  internal: 'Internal error',
} as const;
