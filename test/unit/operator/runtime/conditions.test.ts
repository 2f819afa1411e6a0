// Status conditions: one entry per type, found by type, lastTransitionTime moving only when the status flips.
import { describe, expect, it } from 'vitest';
import { findCondition, setCondition } from '../../../../operator/runtime/conditions.js';
import type { Condition } from '../../../../operator/types/resources.js';

describe('conditions', () => {
  it('moves lastTransitionTime only when a condition flips', () => {
    const t1 = new Date('2030-01-01T00:00:00Z');
    const t2 = new Date('2030-01-01T00:05:00Z');
    let c = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'VaultUnavailable', message: 'down' }, t1);
    c = setCondition(c, { type: 'Ready', status: 'False', reason: 'TenantNotReady', message: 'waiting' }, t2);
    expect(c).toEqual([{ type: 'Ready', status: 'False', reason: 'TenantNotReady', message: 'waiting', lastTransitionTime: '2030-01-01T00:00:00Z' }]);
    c = setCondition(c, { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'ok' }, t2);
    expect(c[0]!.lastTransitionTime).toBe('2030-01-01T00:05:00Z');
  });

  it('finds a condition by its type, and nothing in a status without it', () => {
    const at = '2030-01-01T00:00:00Z';
    const conditions: Condition[] = [
      { type: 'Synced', status: 'False', reason: 'VaultUnavailable', message: 'down', lastTransitionTime: at },
      { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'ok', lastTransitionTime: at },
    ];
    expect(findCondition(conditions, 'Ready')).toBe(conditions[1]);
    expect(findCondition(conditions, 'Synced')?.reason).toBe('VaultUnavailable');
    expect(findCondition(conditions, 'Degraded')).toBeUndefined();
    expect(findCondition([], 'Ready')).toBeUndefined();
    expect(findCondition(undefined, 'Ready')).toBeUndefined();
  });

  it('replaces the condition of the same type and leaves the others where they are', () => {
    const t1 = new Date('2030-01-01T00:00:00Z');
    let c = setCondition(undefined, { type: 'Synced', status: 'True', reason: 'Reconciled', message: 'ok' }, t1);
    c = setCondition(c, { type: 'Ready', status: 'False', reason: 'TenantNotReady', message: 'waiting' }, t1);
    const before = c;
    c = setCondition(c, { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'ok' }, new Date('2030-01-01T00:01:00Z'));
    expect(c.map((x) => x.type)).toEqual(['Synced', 'Ready']);
    expect(findCondition(c, 'Ready')).toMatchObject({ status: 'True', lastTransitionTime: '2030-01-01T00:01:00Z' });
    expect(findCondition(c, 'Synced')).toBe(before[0]);
    // The list given is not changed: the caller's status keeps what it read.
    expect(findCondition(before, 'Ready')?.status).toBe('False');
  });
});
