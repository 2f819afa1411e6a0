// Reads every row of a paged list (`offset`, `limit`; answers `{ total, rows }`), a page at a time.

/** Rows asked for per page: the API's own ceiling (api/ops/schemas.ts, Limit). */
export const PAGE_LIMIT = 100;

export interface Page<Row> {
  total: number;
  rows: Row[];
}

/**
 * Every row, in the API's order. It stops at `total`, or at an empty page (rows deleted while reading), and never
 * reads more than `maxPages` pages, so a vault that keeps growing cannot keep the page reading forever.
 */
export async function readAllPages<Row>(fetchPage: (offset: number, limit: number) => Promise<Page<Row>>, maxPages = 1000): Promise<Row[]> {
  const all: Row[] = [];
  for (let pages = 0; pages < maxPages; pages++) {
    const { total, rows } = await fetchPage(all.length, PAGE_LIMIT);
    all.push(...rows);
    if (rows.length === 0 || all.length >= total) break;
  }
  return all;
}
