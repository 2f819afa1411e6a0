// Time values of the contract: durations, bare integers, ISO-8601 dates. The duration grammar is the one the console
// and the operator's CRDs use too (operator/types/duration.ts writes it again, since the operator imports nothing
// from the api; test/fixtures/durations.json and a property test hold the two to the same answers).
import { BadRequestError } from '../errors.js';
export type TimeValue = { kind: 'relative'; seconds: number } | { kind: 'absolute'; at: number };

const DAY = 86_400;
/** `m` is the contract's month (31 days, as in DatabunkerPro); `min` and `mo` say minutes and months outright. */
export const DURATION_UNITS: Readonly<Record<string, number>> = { s: 1, min: 60, h: 3600, d: DAY, m: 31 * DAY, mo: 31 * DAY, y: 365 * DAY };
/** The longest duration accepted: a longer one is a typo, not a retention period. */
export const MAX_DURATION_SECONDS = 200 * 365 * DAY;
const DURATION = /^(\d{1,9})\s*(s|min|h|d|mo|m|y)$/i;

/** What a 400 says a duration is, so a refused value teaches the grammar. */
export const DURATION_FORMS = 'a number with s, min (minutes), h, d, m or mo (months of 31 days) or y (e.g. 30min, 12h, 7d, 6mo)';
export const TIME_FORMS = `${DURATION_FORMS}, a Unix time or seconds as a bare integer, or an ISO-8601 date`;

/** Seconds in a duration (`30min`, `12h`, `6mo`; case and a space before the unit do not matter), else undefined. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  const seconds = Number(m[1]) * DURATION_UNITS[m[2]!.toLowerCase()]!;
  return seconds <= MAX_DURATION_SECONDS ? seconds : undefined;
}

/** Parses one time value; undefined when the text is not one of the accepted forms. */
export function parseTimeValue(value: string | number, now: number): TimeValue | undefined {
  const text = typeof value === 'number' ? (Number.isInteger(value) && value >= 0 ? String(value) : '') : value.trim();
  const bare = /^(\d{1,12})$/.exec(text);
  if (bare) {
    const n = Number(bare[1]);
    // A bare integer in the future is a Unix time; anything smaller is a number of seconds (OSS semantics).
    return n > now ? { kind: 'absolute', at: n } : { kind: 'relative', seconds: n };
  }
  const seconds = parseDuration(text);
  if (seconds !== undefined) return { kind: 'relative', seconds };
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) {
    const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
    if (Number.isFinite(ms)) return { kind: 'absolute', at: Math.floor(ms / 1000) };
  }
  return undefined;
}

/** The 400 for a time value that is none of the forms, naming the field and the forms. */
export function badTimeValue(field: string): BadRequestError {
  return new BadRequestError(`The ${field} parameter has an incorrect format: use ${TIME_FORMS}`);
}

/** A deadline (`finaltime`) as a Unix time; null for "none" (absent or 0). */
export function toDeadline(v: TimeValue | undefined, now: number): number | null {
  if (!v) return null;
  if (v.kind === 'absolute') return v.at;
  return v.seconds === 0 ? null : now + v.seconds;
}

/** A period (`slidingtime`) in seconds; null for "none". An absolute time becomes the distance to it. */
export function toPeriod(v: TimeValue | undefined, now: number): number | null {
  if (!v) return null;
  const seconds = v.kind === 'relative' ? v.seconds : v.at - now;
  return seconds > 0 ? seconds : null;
}

/** The effective end of a record's life: the earlier of its deadline and its last use plus the sliding period. */
export function expiresAt(finaltime: number | null, slidingtime: number | null, lastUse: number): number | null {
  const sliding = slidingtime ? lastUse + slidingtime : null;
  if (finaltime && sliding) return Math.min(finaltime, sliding);
  return finaltime ?? sliding;
}

/**
 * An expiry held to the longest lifetime allowed: the one served, and whether the one asked for was later, which
 * the answer then says (`capped: true`) instead of shortening it silently.
 */
export function capExpiry(wanted: number, now: number, maxSeconds: number): { expires: number; capped: boolean } {
  const limit = now + maxSeconds;
  return wanted > limit ? { expires: limit, capped: true } : { expires: wanted, capped: false };
}

/** What an answer adds about a cap: `capped: true` when the lifetime asked for was cut, nothing otherwise. */
export function cappedField(capped: boolean): { capped?: true } {
  return capped ? { capped: true } : {};
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** `finaltime` and `slidingtime` of a request, or a 400 naming the field that is not a time value. */
export function expiryFrom(
  input: { finaltime?: string | number | undefined; slidingtime?: string | number | undefined },
  now: number,
): { finaltime: number | null; slidingtime: number | null } {
  const parse = (field: 'finaltime' | 'slidingtime') => {
    const raw = input[field];
    if (raw === undefined) return undefined;
    const v = parseTimeValue(raw, now);
    if (!v) throw badTimeValue(field);
    return v;
  };
  const finaltime = toDeadline(parse('finaltime'), now);
  if (finaltime !== null && finaltime <= now) throw new BadRequestError('The finaltime parameter must lie in the future');
  return { finaltime, slidingtime: toPeriod(parse('slidingtime'), now) };
}
