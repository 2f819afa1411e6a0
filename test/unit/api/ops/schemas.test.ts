// The shared request schemas: how offset and limit become a page.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pageOf, Limit, Offset } from '../../../../api/ops/schemas.js';

describe('pagination', () => {
  const Page = z.object({ offset: Offset, limit: Limit });
  it.each([
    [{}, { offset: 0, limit: 10 }],
    [{ limit: 0 }, { offset: 0, limit: 100 }],
    [{ limit: 101 }, { offset: 0, limit: 100 }],
    [{ limit: '25', offset: '50' }, { offset: 50, limit: 25 }],
  ])('%j pages as %j', (input, expected) => {
    expect(pageOf(Page.parse(input), 100)).toEqual(expected);
  });
});
