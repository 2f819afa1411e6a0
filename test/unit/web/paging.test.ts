// readAllPages against an in-memory list: every row once, in order, whatever the page size the server applies.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readAllPages } from '../../../web/src/shared/paging.js';

describe('readAllPages', () => {
  it('returns every row once, in order, for any list length and server page cap', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(350), fc.integer({ min: 1, max: 120 }), async (n, cap) => {
        const list = Array.from({ length: n }, (_, i) => i);
        let calls = 0;
        const rows = await readAllPages(async (offset, limit) => {
          calls++;
          return { total: list.length, rows: list.slice(offset, offset + Math.min(limit, cap)) };
        });
        expect(rows).toEqual(list);
        expect(calls).toBeLessThanOrEqual(Math.max(1, Math.ceil(n / Math.min(cap, 100))));
      }),
    );
  });

  it('stops at an empty page even when total says more (rows deleted meanwhile)', async () => {
    const rows = await readAllPages(async (offset) => ({ total: 10, rows: offset === 0 ? [1, 2, 3] : [] }));
    expect(rows).toEqual([1, 2, 3]);
  });

  it('reads no more than maxPages pages', async () => {
    let calls = 0;
    const rows = await readAllPages(async () => {
      calls++;
      return { total: Number.MAX_SAFE_INTEGER, rows: [calls] };
    }, 5);
    expect(rows).toEqual([1, 2, 3, 4, 5]);
  });
});
