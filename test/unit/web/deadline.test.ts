// The request inbox's deadline: one calendar month after the request, clamped to the month's last day.
import { describe, expect, it } from 'vitest';
import { deadlineOf } from '../../../web/src/shared/deadline.js';

const at = (iso: string) => new Date(iso).getTime();

describe('deadlineOf', () => {
  it('gives a request one calendar month and counts the days left', () => {
    const made = at('2026-03-10T12:00:00') / 1000;
    const d = deadlineOf(made, at('2026-03-15T12:00:00'));
    expect(d.due.getMonth()).toBe(3);
    expect(d.due.getDate()).toBe(10);
    expect(d).toMatchObject({ age: 5, left: 26 });
  });

  it('ends a request made on the 31st on the last day of a shorter month', () => {
    const d = deadlineOf(at('2026-01-31T09:00:00') / 1000, at('2026-02-01T09:00:00'));
    expect([d.due.getMonth(), d.due.getDate()]).toEqual([1, 28]);
  });

  it('counts the days past the deadline as negative', () => {
    const d = deadlineOf(at('2026-01-01T09:00:00') / 1000, at('2026-02-04T09:00:00'));
    expect(d.left).toBe(-3);
    expect(d.age).toBe(34);
  });
});
