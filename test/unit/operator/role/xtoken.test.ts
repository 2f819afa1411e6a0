// When a Role's xtoken is replaced, and when the operator looks at the Role again: read from the injected clock.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../operator/runtime/clock.js';
import { rotateAt, untilRotation } from '../../../../operator/role/xtoken.js';
import { durationSeconds } from '../../../../operator/types/resources.js';

/** A clock standing at this Unix time (seconds). */
const at = (unixSeconds: number): Clock => ({ now: () => unixSeconds * 1000 });

describe('xtoken timing', () => {
  it('rotates rotateBefore ahead of expiry, but never in the first half of a token\'s life', () => {
    expect(rotateAt(1000, 4600, 600)).toBe(4000);
    // The vault capped a 1d lifetime to 1h while the margin asks for 2h: rotate at half-life, not at once.
    expect(rotateAt(1000, 4600, 7200)).toBe(2800);
    expect(durationSeconds('90s') + durationSeconds('10min') + durationSeconds('2h') + durationSeconds('1d')).toBe(90 + 600 + 7200 + 86_400);
  });

  it('comes back when the rotation margin says, counted from the injected clock', () => {
    // Issued at 1000 for 1h with rotateBefore 10m: due at 4000.
    const state = { expires: 4600, rotateAt: rotateAt(1000, 4600, durationSeconds('10min')) };
    expect(untilRotation(state, at(1000))).toBe(3_000_000);
    expect(untilRotation(state, at(3400))).toBe(600_000);
    // A margin beyond half the life moves the same token's requeue to its half-life.
    expect(untilRotation({ expires: 4600, rotateAt: rotateAt(1000, 4600, durationSeconds('2h')) }, at(1000))).toBe(1_800_000);
  });

  it('looks again a second later at the soonest, when the token is due or overdue', () => {
    const state = { expires: 4600, rotateAt: 4000 };
    expect(untilRotation(state, at(3999.5))).toBe(1000);
    expect(untilRotation(state, at(4000))).toBe(1000);
    expect(untilRotation(state, at(5000))).toBe(1000);
    // Fractions of a millisecond round up: never before the token is due.
    expect(untilRotation({ expires: 4600, rotateAt: 3998.0005 }, at(3996))).toBe(2001);
  });
});
