// The tenants' pools under one bound (api/store/tenant-pools.ts), driven directly: generated sequences of statements
// of many tenants, some held open, checked against the connections each statement sees open (never past the bound),
// the server's own count once they are done (none left behind), and a hang (every statement gets its connection
// once those held are given back), including a tenant whose pool lost its connections to the idle timeout while
// other tenants' idle pools filled the bound. (The server's count while connections are closed and made again for a
// waiting statement lags by the backends still exiting: test/integration/tenant-connections.test.ts holds a whole
// api to it with that margin.)
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantPools } from '../../api/store/tenant-pools.js';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../fixtures/database.js';

const MAX = 4;
let db: TestDatabase;
let admin: pg.Client;

const connections = async () =>
  Number((await admin.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")).rows[0]!.n);

describe.skipIf(!usingPostgres())('the tenants\' pools (PostgreSQL only: the embedded database has no tenant pools)', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  const make = (idleMs = 5_000) => new TenantPools({ databaseUrl: db.url!, max: MAX, roleOf: () => 'postgres', types: undefined, idleMs });

  it('give a tenant whose connections timed out a connection while idle pools of others fill the bound', async () => {
    const pools = make(1_000);
    try {
      const use = async (tenant: number) => {
        const c = await pools.pool(tenant).connect();
        await c.query('select 1');
        return { release: () => pools.pool(tenant).release(c) };
      };
      // Three tenants' pools, whose connections all time out: the pools stay, empty.
      for (const t of [3, 1, 2]) (await use(t)).release();
      await expect.poll(() => pools.open, { timeout: 5_000 }).toBe(0);
      // Tenants 1 and 2 fill the bound with idle connections (two each, made at once).
      for (const t of [1, 2]) for (const c of await Promise.all([use(t), use(t)])) c.release();
      expect(pools.open).toBe(MAX);
      // Before the idle ones time out, tenant 3 asks again: the least recently used idle pool (tenant 1's) is closed
      // for it at once, not after the others' idle timeout.
      const c = await use(3);
      c.release();
      expect(pools.open).toBe(3);
    } finally {
      await pools.close();
    }
  });

  it('keep the server\'s connections within the bound, and serve every statement (generated)', async () => {
    const statement = fc.record({ tenant: fc.integer({ min: 1, max: 12 }), holdMs: fc.integer({ min: 0, max: 30 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(statement, { minLength: 1, maxLength: 30 }), fc.integer({ min: 5, max: 400 }), async (statements, idleMs) => {
        const pools = make(idleMs);
        let most = 0;
        try {
          await Promise.all(
            statements.map(async ({ tenant, holdMs }) => {
              const connections = pools.pool(tenant);
              const c = await connections.connect();
              try {
                // Counted by the server: the backends of the pools' open connections, this one among them.
                most = Math.max(most, pools.open, Number((await c.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and state <> 'idle'")).rows[0]!.n));
                await new Promise((r) => setTimeout(r, holdMs));
              } finally {
                connections.release(c);
              }
            }),
          );
        } finally {
          await pools.close();
        }
        expect(most).toBeLessThanOrEqual(MAX);
        await expect.poll(connections, { timeout: 5_000 }).toBe(0);
      }),
      { numRuns: 25 },
    );
  }, 60_000);
});
