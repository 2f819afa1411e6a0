// What the xtoken operations share: how long an xtoken lives, and how one is named (its id, never the secret).
import { z } from 'zod';
import { capExpiry, expiryFrom } from '../../vault/durations.js';

const DEFAULT_SECONDS = 600;

/**
 * The finaltime (or slidingtime, from now), else 10 minutes, never past the cap: `capped` says the lifetime asked
 * for was cut to it (the answer says so, with the expiry served).
 */
export function xtokenExpiry(
  input: { finaltime?: string | number | undefined; slidingtime?: string | number | undefined },
  now: number,
  maxSeconds: number,
): { expires: number; capped: boolean } {
  const { finaltime, slidingtime } = expiryFrom(input, now);
  const wanted = finaltime ?? (slidingtime ? now + slidingtime : now + DEFAULT_SECONDS);
  return capExpiry(wanted, now, maxSeconds);
}

/** An xtoken's id as XTokenCreateForRole/XTokenCreateForUser return it; a malformed one is a 400 naming the field. */
export const XTokenId = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { error: 'must be a UUID' })
  .transform((id) => id.toLowerCase());
