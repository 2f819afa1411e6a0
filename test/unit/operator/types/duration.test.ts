// One duration grammar in two programs: the operator's copy (operator/types/duration.ts) and the api's
// (api/vault/durations.ts) give the same seconds for every text, or both refuse it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseDuration as operatorParse } from '../../../../operator/types/duration.js';
import { parseDuration as apiParse } from '../../../../api/vault/durations.js';
import { RoleSpec, durationSeconds } from '../../../../operator/types/resources.js';

const table = JSON.parse(readFileSync(new URL('../../../fixtures/durations.json', import.meta.url), 'utf8')) as { cases: [string, number | null][] };

/** Texts near the grammar: digits, maybe a space, a unit or a near miss of one, maybe padding. */
const nearDuration = fc
  .tuple(
    fc.constantFrom('', ' ', '\t'),
    fc.oneof(fc.nat({ max: 2000 }).map(String), fc.stringMatching(/^\d{1,12}$/)),
    fc.constantFrom('', ' ', '  '),
    fc.constantFrom('s', 'min', 'h', 'd', 'm', 'mo', 'y', 'M', 'MO', 'Min', 'S', 'w', 'mi', 'mn', 'sec', 'ms', 'mon', 'hr', 'yr', ''),
    fc.constantFrom('', ' ', 'x'),
  )
  .map((parts) => parts.join(''));

describe('the duration grammar', () => {
  it.each(table.cases)('reads %j as %j seconds in the operator and in the api', (text, seconds) => {
    expect(operatorParse(text) ?? null).toBe(seconds);
    expect(apiParse(text) ?? null).toBe(seconds);
  });

  it('gives the same answer in both programs for any text', () => {
    fc.assert(
      fc.property(fc.oneof(nearDuration, fc.string(), fc.string({ unit: 'grapheme' })), (text) => {
        expect(operatorParse(text)).toBe(apiParse(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads m as a month in a Role, as the API does, and min as minutes', () => {
    const spec = (lifetime: string) => RoleSpec.parse({ tenantRef: { name: 't' }, roleName: 'r', policies: [{ name: 'p', document: {} }], xtoken: { secretName: 's', lifetime } });
    expect(durationSeconds(spec('30min').xtoken.lifetime)).toBe(1800);
    expect(durationSeconds(spec('1m').xtoken.lifetime)).toBe(31 * 86_400);
    // The default margin is ten minutes, spelt so.
    expect(durationSeconds(spec('1h').xtoken.rotateBefore)).toBe(600);
    expect(() => spec('30 minutes')).toThrow(/min \(minutes\)/);
  });
});
