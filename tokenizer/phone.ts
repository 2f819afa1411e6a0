// A phone number's E.164 form, as libphonenumber gives it, without its walk over the countries of a shared calling
// code where that walk cannot change the answer.
import { parsePhoneNumberFromString, type MetadataJson } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/min/metadata';

/** The country a number written without a calling code is read in. */
export const DEFAULT_COUNTRY = 'GB';

/** The longest national number libphonenumber parses (its MAX_LENGTH_FOR_NSN). */
const MAX_NATIONAL_LENGTH = 17;

type Countries = Record<string, unknown[]>;

/**
 * The possible lengths of a country's numbers: what "possible" checks, the 4th field of the metadata's country entry.
 * An entry without them is treated as "any length", as libphonenumber does.
 */
function possibleLengths(country: string): readonly number[] | undefined {
  return (metadata as unknown as { countries: Countries }).countries[country]?.[3] as number[] | undefined;
}

/** libphonenumber's length check without a number type (helpers/checkNumberLength.js): is this length possible? */
function lengthPossible(lengths: readonly number[] | undefined, length: number): boolean {
  if (!lengths?.length) return true;
  return lengths.includes(length);
}

/**
 * For each calling code shared by several countries, the national number lengths on which every one of them agrees
 * that a number is possible, or agrees that it is not. Only there is the walk skipped: whichever country it picks, the
 * answer is the same, since the E.164 form (`+` calling code national number) does not depend on the country.
 */
function agreedLengths(): Map<string, Set<number>> {
  const agreed = new Map<string, Set<number>>();
  for (const [code, countries] of Object.entries(metadata.country_calling_codes as Record<string, string[]>)) {
    if (countries.length < 2) continue;
    const lengths = new Set<number>();
    for (let length = 0; length <= MAX_NATIONAL_LENGTH; length++) {
      const verdicts = new Set(countries.map((c) => lengthPossible(possibleLengths(c), length)));
      if (verdicts.size === 1) lengths.add(length);
    }
    agreed.set(code, lengths);
  }
  return agreed;
}

const AGREED = agreedLengths();

/**
 * The same metadata with each shared calling code listing its main country alone: what libphonenumber reads before
 * it picks the country (the calling code, the national number) is read from the main country in both.
 */
const ONE_COUNTRY_PER_CODE: MetadataJson = {
  ...metadata,
  country_calling_codes: Object.fromEntries(Object.entries(metadata.country_calling_codes as Record<string, string[]>).map(([code, countries]) => [code, countries.slice(0, 1)])),
} as MetadataJson;

/** libphonenumber's own answer, with the walk. */
function walked(text: string): string | undefined {
  const parsed = parsePhoneNumberFromString(text, DEFAULT_COUNTRY, metadata as MetadataJson);
  return parsed?.isPossible() ? parsed.number : undefined;
}

/**
 * "Possible" (right length for its country), not "valid" (in an allocated range): allocations change with
 * libphonenumber's metadata, and a hash must not change when the library is upgraded. It also keeps
 * "07700 900123" and "+44 7700 900123" on one index although Ofcom reserves that range for drama.
 *
 * Equal to libphonenumber's own `parsePhoneNumberFromString(text, 'GB')` for every text (test/unit/tokenizer/phone.test.ts): read without the walk first, and
 * answered from that read only where the countries of its calling code agree on its length.
 */
export function e164(text: string): string | undefined {
  const quick = parsePhoneNumberFromString(text, DEFAULT_COUNTRY, ONE_COUNTRY_PER_CODE);
  if (!quick) return undefined;
  const agreed = AGREED.get(quick.countryCallingCode);
  if (agreed && !agreed.has(quick.nationalNumber.length)) return walked(text);
  return quick.isPossible() ? quick.number : undefined;
}
