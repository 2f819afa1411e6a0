// The lifetime picker's text against the vault's own duration parser: every text it sends is accepted, and means
// the number of units picked (minutes are minutes, months are months).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lifetimeText, UNITS } from '../../../web/src/shared/duration.js';
import { DURATION_UNITS, MAX_DURATION_SECONDS, parseDuration } from '../../../api/vault/durations.js';

describe('lifetimeText', () => {
  it('sends 30 minutes as 30min, never the month-meaning m', () => {
    expect(lifetimeText({ amount: '30', unit: 'min' })).toBe('30min');
    expect(parseDuration('30min')).toBe(1800);
  });
  it('is accepted by the vault and means amount × unit, for every unit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999 }), fc.constantFrom(...UNITS.map(([u]) => u)), (n, unit) => {
        const sent = lifetimeText({ amount: String(n), unit });
        expect(sent).toBe(`${n}${unit}`);
        const seconds = n * DURATION_UNITS[unit]!;
        expect(parseDuration(sent!)).toBe(seconds <= MAX_DURATION_SECONDS ? seconds : undefined);
      }),
    );
  });
  it('refuses what is not a whole number from 1 up', () => {
    for (const amount of ['', '0', '-1', '1.5', '1e3', 'abc', '01', '9999999999']) expect(lifetimeText({ amount, unit: 'h' })).toBeNull();
  });
});
