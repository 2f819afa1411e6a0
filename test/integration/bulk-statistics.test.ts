// Bulk loads leave the planner statistics behind them: without any, PostgreSQL planned the bulk create's duplicate
// check as a scan of the whole table for every chunk (autovacuum is off on the CI database, and slow on a fresh
// import anywhere).
import { describe, expect } from 'vitest';
import { it, buildProfile } from '../fixtures/vault.js';

import { MAIN_TENANT_ID } from '../../api/store/schemas.js';
import { ANALYZE_AFTER } from '../../api/vault/statistics.js';
import type { TestVault } from '../fixtures/vault.js';

/** The planner's count of the tenant's people: -1 (PostgreSQL 14 and later) until the table was first analysed. */
async function plannerRows(vault: TestVault): Promise<number> {
  const [row] = await vault.api.services.db.stores(MAIN_TENANT_ID).sql.query<{ n: number }>(`select reltuples::float8 as n from pg_class where oid = 'tenant_${MAIN_TENANT_ID}.users'::regclass`);
  return Number(row!.n);
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('not within the time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Phones numbered in turn: buildProfile's random ones collide about once in 16 runs of a thousand people.
let next = 0;
const bulk = (vault: TestVault, n: number) =>
  vault.call('UserCreateBulk', { records: Array.from({ length: n }, () => ({ profile: buildProfile({ phone: `+1555${String(next++).padStart(7, '0')}` }) })) });

describe('statistics after bulk loads', () => {
  it('analyses the tables once a bulk load has added enough people, and not before', async ({ vault }) => {
    const statistics = vault.api.services.statistics;
    const before = statistics.analysed;
    const rowsBefore = await plannerRows(vault);
    // Below the threshold: counted, nothing analysed.
    expect((await bulk(vault, 20)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(statistics.analysed).toBe(before);
    expect(await plannerRows(vault)).toBe(rowsBefore);
    // Past it, counting what came before: the analysis follows the commit, and the planner knows the rows.
    let loaded = 20;
    while (loaded < ANALYZE_AFTER) {
      const n = Math.min(500, ANALYZE_AFTER - loaded);
      const res = await bulk(vault, n);
      expect(res.status).toBe(200);
      expect(res.body.created).toHaveLength(n);
      loaded += n;
    }
    await until(async () => statistics.analysed > before);
    expect(await plannerRows(vault)).toBeGreaterThanOrEqual(ANALYZE_AFTER * 0.9);
    // The next one waits for a fifth of the table or ANALYZE_AFTER, whichever is more.
    const after = statistics.analysed;
    expect((await bulk(vault, 100)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(statistics.analysed).toBe(after);
  });
});
