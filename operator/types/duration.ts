// The vault's duration grammar, written again for the operator (which imports nothing from the api): `30min`, `12h`,
// `7d`, `6mo`; `m` is a month of 31 days, as in the API. api/vault/durations.ts is the other copy; the table in
// test/fixtures/durations.json and a property test hold the two to the same answer for every text.

const DAY = 86_400;
const UNITS: Readonly<Record<string, number>> = { s: 1, min: 60, h: 3600, d: DAY, m: 31 * DAY, mo: 31 * DAY, y: 365 * DAY };
/** The longest duration accepted (200 years): a longer one is a typo. */
const MAX_SECONDS = 200 * 365 * DAY;
const DURATION = /^(\d{1,9})\s*(s|min|h|d|mo|m|y)$/i;

/** What a refused duration is told it should be. */
export const DURATION_FORMS = 'a number with s, min (minutes), h, d, m or mo (months of 31 days) or y (e.g. 30min, 12h, 7d)';

/** Seconds in a duration, else undefined. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  const seconds = Number(m[1]) * UNITS[m[2]!.toLowerCase()]!;
  return seconds <= MAX_SECONDS ? seconds : undefined;
}
