// Database errors, translated once: a unique violation becomes the caller's 409, the request's own bad text its 400.
import { badRequest, conflict, forbidden, notFound, Messages, UnavailableError } from '../errors.js';

/** A unique-constraint violation, whether pg or the ORM reports it. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; name?: string } | null | undefined;
  return e?.code === '23505' || e?.name === 'UniqueConstraintViolationException';
}

/** Runs a write; a unique violation it causes answers 409 with the contract's message for that record. */
export async function conflictOnUnique<T>(message: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(message);
    throw err;
  }
}

/**
 * A database refusal caused by the request's own text (a NUL character, which PostgreSQL text cannot hold, or
 * bytes it cannot encode) is the client's 400. A call that lost a race with another one is answered as it would
 * have been a moment later: the tenant or role it named gone (404), its own credential revoked (403), a lock it
 * could not get or a deadlock (503, to retry). Anything else stays what it was.
 */
export function fromDatabaseError(err: unknown): unknown {
  const { code, constraint } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  if (code === '22021' || code === '22P05') return badRequest('Invalid API request parameter: text values must not contain NUL characters');
  if (isOutage(err)) return new UnavailableError('The database is unavailable');
  if (code === '40P01' || code === '40001' || code === '55P03') return new UnavailableError('The vault is busy with a change to the same records: try again');
  if (isTenantGone(err)) return notFound(Messages.tenantNotFound);
  if (code === '23503' && constraint === 'credentials_role') return notFound(Messages.roleNotFound);
  if (code === '23503' && typeof constraint === 'string' && constraint.startsWith('unlocks_credential')) return forbidden(Messages.accessDenied);
  return err;
}

/** The tenant dropped under the call (TenantDelete): its schema, a table of it or its database role missing. */
export function isTenantGone(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (code === '3F000') return true;
  // A table of its schema, or its database role (a write runs as it), gone.
  return (code === '42P01' && /"?tenant_\d+"?\./.test(String(message))) || ((code === '42704' || code === '22023') && /role "sr_[0-9a-f]+_t\d+"/.test(String(message)));
}

// PostgreSQL shutting down, restarting, refusing connections, or out of them; the connection itself lost.
const OUTAGE_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300']);
const OUTAGE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
const OUTAGE_TEXT = /Connection terminated|connection is closed|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused/i;

/** The database cannot be reached now: the call may succeed later (503), it is not the vault's fault (500). */
function isOutage(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown; message?: unknown } | null | undefined;
  if (!e) return false;
  if (typeof e.code === 'string' && (OUTAGE_CODES.has(e.code) || OUTAGE_ERRNOS.has(e.code))) return true;
  return typeof e.message === 'string' && OUTAGE_TEXT.test(e.message);
}
