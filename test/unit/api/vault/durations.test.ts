// The contract's time values: units, bare integers, ISO dates, and what is refused.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTimeValue, toDeadline, toPeriod, expiresAt, expiryFrom, capExpiry, cappedField } from '../../../../api/vault/durations.js';
import { BadRequestError } from '../../../../api/errors.js';

const NOW = 1_800_000_000;

describe('parseTimeValue', () => {
  it.each([
    ['10s', 10],
    ['2h', 7200],
    ['7d', 7 * 86400],
    ['1m', 31 * 86400],
    ['1y', 365 * 86400],
    ['12M', 12 * 31 * 86400],
    ['30min', 1800],
    ['6mo', 6 * 31 * 86400],
    ['3600', 3600],
    [3600, 3600],
    ['0', 0],
  ])('%s is %i seconds from now', (input, seconds) => {
    expect(parseTimeValue(input, NOW)).toEqual({ kind: 'relative', seconds });
  });

  it('reads a bare integer in the future as a Unix time', () => {
    expect(parseTimeValue(String(NOW + 5), NOW)).toEqual({ kind: 'absolute', at: NOW + 5 });
    expect(parseTimeValue(NOW + 5, NOW)).toEqual({ kind: 'absolute', at: NOW + 5 });
  });

  it('reads ISO-8601 dates and date-times', () => {
    expect(parseTimeValue('2030-01-01', NOW)).toEqual({ kind: 'absolute', at: Date.UTC(2030, 0, 1) / 1000 });
    expect(parseTimeValue('2030-01-01T12:00:00Z', NOW)).toEqual({ kind: 'absolute', at: Date.UTC(2030, 0, 1, 12) / 1000 });
    expect(parseTimeValue('2030-01-01T12:00:00+02:00', NOW)).toEqual({ kind: 'absolute', at: Date.UTC(2030, 0, 1, 10) / 1000 });
  });

  it.each(['', 'soon', '5w', '-5s', '1.5d', '2030-13-45', 'd', '10 days', -1, 1.5])('refuses %j', (input) => {
    expect(parseTimeValue(input as string, NOW)).toBeUndefined();
  });

  it('never throws, whatever the text', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      const v = parseTimeValue(s, NOW);
      expect(v === undefined || v.kind === 'relative' || v.kind === 'absolute').toBe(true);
    }));
  });
});

describe('deadlines, periods and expiry', () => {
  it('turns values into a deadline and a period', () => {
    expect(toDeadline({ kind: 'relative', seconds: 60 }, NOW)).toBe(NOW + 60);
    expect(toDeadline({ kind: 'relative', seconds: 0 }, NOW)).toBeNull();
    expect(toDeadline({ kind: 'absolute', at: NOW + 9 }, NOW)).toBe(NOW + 9);
    expect(toPeriod({ kind: 'absolute', at: NOW + 9 }, NOW)).toBe(9);
    expect(toPeriod({ kind: 'absolute', at: NOW - 9 }, NOW)).toBeNull();
  });

  it('expires at the earlier of deadline and sliding window', () => {
    expect(expiresAt(null, null, NOW)).toBeNull();
    expect(expiresAt(NOW + 100, null, NOW)).toBe(NOW + 100);
    expect(expiresAt(null, 50, NOW)).toBe(NOW + 50);
    expect(expiresAt(NOW + 100, 500, NOW)).toBe(NOW + 100);
    expect(expiresAt(NOW + 100, 50, NOW)).toBe(NOW + 50);
  });

  it('names the field that is not a time value, and refuses a deadline in the past', () => {
    expect(() => expiryFrom({ slidingtime: 'often' }, NOW)).toThrow(BadRequestError);
    // The 400 teaches the grammar: the field, the units by name, and the other forms.
    expect(() => expiryFrom({ slidingtime: 'often' }, NOW)).toThrow(/^The slidingtime parameter has an incorrect format: use a number with s, min \(minutes\), h, d, m or mo \(months of 31 days\) or y .*Unix time.*ISO-8601/);
    expect(() => expiryFrom({ finaltime: '2001-01-01' }, NOW)).toThrow(/finaltime/);
    expect(expiryFrom({ finaltime: '1d', slidingtime: '1h' }, NOW)).toEqual({ finaltime: NOW + 86400, slidingtime: 3600 });
  });
});

describe('capped lifetimes', () => {
  it('serves the expiry asked for within the cap, and the cap, said so, past it', () => {
    expect(capExpiry(NOW + 60, NOW, 3600)).toEqual({ expires: NOW + 60, capped: false });
    expect(capExpiry(NOW + 3600, NOW, 3600)).toEqual({ expires: NOW + 3600, capped: false });
    expect(capExpiry(NOW + 3601, NOW, 3600)).toEqual({ expires: NOW + 3600, capped: true });
    expect(cappedField(true)).toEqual({ capped: true });
    expect(cappedField(false)).toEqual({});
  });

  it('never serves past the cap nor says capped when it did not cut, for any lifetime and cap', () => {
    fc.assert(fc.property(fc.nat({ max: 10 ** 10 }), fc.integer({ min: 1, max: 10 ** 9 }), (wanted, max) => {
      const { expires, capped } = capExpiry(NOW + wanted, NOW, max);
      expect(expires).toBe(NOW + Math.min(wanted, max));
      expect(capped).toBe(wanted > max);
    }));
  });
});
