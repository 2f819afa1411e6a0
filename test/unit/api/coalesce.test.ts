// The coalescer: calls of one turn share a flush per key, results go back in order, failures reach every caller.
import { describe, expect, it } from 'vitest';
import { Coalescer } from '../../../api/coalesce.js';

describe('Coalescer', () => {
  it('merges the calls of one turn per key and answers each caller with its own result', async () => {
    const flushes: [string, number[]][] = [];
    const c = new Coalescer<number, number>(async (key, items) => {
      flushes.push([key, [...items]]);
      return items.map((i) => i * 10);
    });
    const results = await Promise.all([c.add('a', 1), c.add('b', 2), c.add('a', 3), c.add('a', 4)]);
    expect(results).toEqual([10, 20, 30, 40]);
    expect(flushes).toEqual([
      ['a', [1, 3, 4]],
      ['b', [2]],
    ]);
  });

  it('flushes calls of later turns separately', async () => {
    const sizes: number[] = [];
    const c = new Coalescer<number, number>(async (_key, items) => {
      sizes.push(items.length);
      return items;
    });
    await c.add('k', 1);
    await c.add('k', 2);
    expect(sizes).toEqual([1, 1]);
  });

  it('flushes at once when a group reaches its size limit', async () => {
    const sizes: number[] = [];
    const c = new Coalescer<number, number>(async (_key, items) => {
      sizes.push(items.length);
      return items;
    }, { maxItems: 3 });
    await Promise.all([1, 2, 3, 4, 5].map((i) => c.add('k', i)));
    expect(sizes).toEqual([3, 2]);
  });

  it('holds new calls while the key has maxInFlight round trips out, then sends them together', async () => {
    const sizes: number[] = [];
    const gates: (() => void)[] = [];
    const c = new Coalescer<number, number>(
      (_key, items) => {
        sizes.push(items.length);
        return new Promise((resolve) => gates.push(() => resolve(items)));
      },
      { maxInFlight: 1 },
    );
    const first = c.add('k', 1);
    await new Promise((r) => setImmediate(r));
    expect(sizes).toEqual([1]);
    // Arrive in later turns while the first is out: held, not sent.
    const later = [c.add('k', 2)];
    await new Promise((r) => setImmediate(r));
    later.push(c.add('k', 3));
    await new Promise((r) => setImmediate(r));
    const other = c.add('other', 9);
    await new Promise((r) => setImmediate(r));
    expect(sizes).toEqual([1, 1]);
    gates[0]!();
    expect(await first).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(sizes).toEqual([1, 1, 2]);
    gates[1]!();
    gates[2]!();
    expect(await Promise.all([...later, other])).toEqual([2, 3, 9]);
  });

  it('sends held calls after a failed round trip too', async () => {
    let calls = 0;
    const c = new Coalescer<number, number>(
      async (_key, items) => {
        calls++;
        if (calls === 1) throw new Error('first fails');
        return items;
      },
      { maxInFlight: 1 },
    );
    const first = expect(c.add('k', 1)).rejects.toThrow('first fails');
    await new Promise((r) => setImmediate(r));
    const second = c.add('k', 2);
    await first;
    expect(await second).toBe(2);
  });

  it('rejects every caller of a failed flush, thrown or rejected, and of a flush with the wrong result count', async () => {
    const thrown = new Coalescer<number, number>(() => {
      throw new Error('boom');
    });
    await expect(Promise.all([thrown.add('k', 1), thrown.add('k', 2)])).rejects.toThrow('boom');
    const rejected = new Coalescer<number, number>(async () => Promise.reject(new Error('down')));
    const outcomes = await Promise.allSettled([rejected.add('k', 1), rejected.add('k', 2)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    const short = new Coalescer<number, number>(async () => [1]);
    await expect(Promise.all([short.add('k', 1), short.add('k', 2)])).rejects.toThrow(/1 results for 2 items/);
  });
});
