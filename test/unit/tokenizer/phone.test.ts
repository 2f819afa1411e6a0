// The phone normaliser skips libphonenumber's walk over the countries of a shared calling code: its answers must be
// libphonenumber's own, or stored phone hashes would stop matching. The oracle is the library's default export, the
// call blind-index.ts made before.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import parsePhoneNumberFromString from 'libphonenumber-js';
import metadata from 'libphonenumber-js/min/metadata';
import { e164 } from '../../../tokenizer/phone.js';

function oracle(text: string): string | undefined {
  const parsed = parsePhoneNumberFromString(text, 'GB');
  return parsed?.isPossible() ? parsed.number : undefined;
}

const callingCodes = Object.keys(metadata.country_calling_codes as Record<string, string[]>);
const sharedCodes = callingCodes.filter((c) => (metadata.country_calling_codes as Record<string, string[]>)[c]!.length > 1);

/** Written as people write numbers: blanks, dashes, dots, brackets, a "(0)", a leading 0 or 00. */
const separator = fc.constantFrom('', '', ' ', '-', '.', ' - ', '/');
const digits = (min: number, max: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
const grouped = (national: string, seps: string[]) => {
  let out = '';
  for (let i = 0; i < national.length; i++) out += (i > 0 && i % 3 === 0 ? seps[i % seps.length]! : '') + national[i]!;
  return out;
};

const international = fc
  .record({ code: fc.oneof(fc.constantFrom(...sharedCodes), fc.constantFrom(...callingCodes)), national: digits(1, 19), seps: fc.array(separator, { minLength: 1, maxLength: 4 }), lead: fc.constantFrom('+', '+', '00', '+ ', '011'), trunk: fc.constantFrom('', '', '(0)', '0') })
  .map(({ code, national, seps, lead, trunk }) => `${lead}${code} ${trunk}${grouped(national, seps)}`);

const nationalForm = fc
  .record({ national: digits(1, 19), seps: fc.array(separator, { minLength: 1, maxLength: 4 }), lead: fc.constantFrom('', '0', '(0', '0 ') })
  .map(({ national, seps, lead }) => `${lead}${grouped(national, seps)}`);

/** Numbers in the ranges the shared codes' countries differ on: NANP's 7-digit CA numbers, +44's crown dependencies. */
const edges = fc.oneof(
  digits(4, 8).map((d) => `+1 310${d}`),
  digits(6, 10).map((d) => `+44 1481${d}`),
  digits(6, 10).map((d) => `+44 7624${d}`),
  digits(6, 10).map((d) => `07700${d}`),
  digits(3, 9).map((d) => `+61 8 9162${d}`),
  digits(2, 6).map((d) => `+290 ${d}`),
  digits(4, 8).map((d) => `+599 ${d}`),
);

describe('e164', () => {
  it('answers what libphonenumber answers, on numbers written every way', () => {
    fc.assert(fc.property(fc.oneof(international, nationalForm, edges), (text) => {
      expect(e164(text)).toBe(oracle(text));
    }), { numRuns: 10_000 });
  });

  it('answers what libphonenumber answers on any text', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'+0123456789 ()-.x#*ext'.split('')) })), (text) => {
      expect(e164(text)).toBe(oracle(text));
    }), { numRuns: 5_000 });
  });

  it('answers what libphonenumber answers for every length under every calling code', () => {
    // Each calling code with a national number of every length it may hold, starting with each digit: every length
    // on which the code's countries disagree goes through the walk.
    for (const code of callingCodes) {
      for (let length = 1; length <= 18; length++) {
        for (const first of '0123456789') {
          const text = `+${code}${first}${'5'.repeat(length - 1)}`;
          expect(e164(text), text).toBe(oracle(text));
        }
      }
    }
  });

  it('keeps the forms the lookup tests rely on', () => {
    expect(e164('+1 (415) 555-2671')).toBe('+14155552671');
    expect(e164('07700 900123')).toBe('+447700900123');
    expect(e164('+1555' + '0000042')).toBe('+15550000042');
    // A 7-digit NANP number is possible in Canada alone: the walk decides, as before.
    expect(e164('+1 310 1234')).toBe(oracle('+1 310 1234'));
  });
});
