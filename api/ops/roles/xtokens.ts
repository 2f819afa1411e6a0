// How long an xtoken lives: the call's finaltime (or slidingtime, from now), else 10 minutes, never past the cap.
import { expiryFrom } from '../../vault/durations.js';

const DEFAULT_SECONDS = 600;

export function xtokenExpiry(input: { finaltime?: string | number | undefined; slidingtime?: string | number | undefined }, now: number, maxSeconds: number): number {
  const { finaltime, slidingtime } = expiryFrom(input, now);
  const wanted = finaltime ?? (slidingtime ? now + slidingtime : now + DEFAULT_SECONDS);
  return Math.min(wanted, now + maxSeconds);
}
