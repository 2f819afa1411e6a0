// The time as the operator reads it. Every decision made from the time (when an xtoken is rotated, when a resource
// is looked at again, when a Lease has expired, when a condition flipped) reads this clock, so tests can set it;
// timers that merely wait stay on real time.
export interface Clock {
  /** Milliseconds since the Unix epoch, like Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
