// Time values of the contract: `Ns`, `Nh`, `Nd`, `Nm` (31-day month), `Ny` (365 days), bare integers, ISO-8601 dates.
import { BadRequestError } from '../errors.js';
export type TimeValue = { kind: 'relative'; seconds: number } | { kind: 'absolute'; at: number };

const UNIT_SECONDS: Record<string, number> = { s: 1, h: 3600, d: 86_400, m: 31 * 86_400, y: 365 * 86_400 };
const MAX_SECONDS = 200 * 365 * 86_400;

/** Parses one time value; undefined when the text is not one of the accepted forms. */
export function parseTimeValue(value: string | number, now: number): TimeValue | undefined {
  const text = typeof value === 'number' ? (Number.isInteger(value) && value >= 0 ? String(value) : '') : value.trim();
  let m = /^(\d{1,12})$/.exec(text);
  if (m) {
    const n = Number(m[1]);
    // A bare integer in the future is a Unix time; anything smaller is a number of seconds (OSS semantics).
    return n > now ? { kind: 'absolute', at: n } : { kind: 'relative', seconds: n };
  }
  m = /^(\d{1,9})\s*([smhdy])$/i.exec(text);
  if (m) {
    const seconds = Number(m[1]) * UNIT_SECONDS[m[2]!.toLowerCase()]!;
    return seconds <= MAX_SECONDS ? { kind: 'relative', seconds } : undefined;
  }
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) {
    const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
    if (Number.isFinite(ms)) return { kind: 'absolute', at: Math.floor(ms / 1000) };
  }
  return undefined;
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
    if (!v) throw new BadRequestError(`The ${field} parameter has an incorrect format`);
    return v;
  };
  const finaltime = toDeadline(parse('finaltime'), now);
  if (finaltime !== null && finaltime <= now) throw new BadRequestError('The finaltime parameter must lie in the future');
  return { finaltime, slidingtime: toPeriod(parse('slidingtime'), now) };
}
