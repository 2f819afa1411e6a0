// Database errors, translated once: a unique violation becomes the caller's 409, the request's own bad text its 400.
import { badRequest, conflict } from '../errors.js';

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
 * bytes it cannot encode) is the client's 400; anything else stays what it was.
 */
export function fromDatabaseError(err: unknown): unknown {
  const code = (err as { code?: unknown })?.code;
  if (code === '22021' || code === '22P05') return badRequest('Invalid API request parameter: text values must not contain NUL characters');
  return err;
}
