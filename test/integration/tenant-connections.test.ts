// An api's database connections stay within a bound set by STRONGROOM_DB_POOL_MAX, whatever the number of tenants: a
// stranger's many tenants made the api hold a connection or two each (its tenant pools kept alive by the privacy
// dispatcher's pass over every tenant each second), until PostgreSQL refused every client on the server. The oracle
// is the server's own count of the database's connections, sampled while generated calls run across many tenants.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { usingPostgres } from '../fixtures/database.js';

const POOL_MAX = 4;
const it = vaultTest({ env: { STRONGROOM_DB_POOL_MAX: String(POOL_MAX), STRONGROOM_EVENTS_DISPATCH_SECONDS: '1' } });

/**
 * The bound: the main pool's connections and the tenant pools' together (POOL_MAX each; this count's own is the main
 * pool's), and the few of the vault's own that do not scale with tenants (the leases' connection, one spare).
 */
const BOUND = 2 * POOL_MAX + 2;

const connections = async (vault: TestVault) =>
  Number((await vault.api.services.db.global().sql.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = current_database()'))[0]!.n);

describe.skipIf(!usingPostgres())('the connections of one api (PostgreSQL only: the embedded database has one connection and no tenant roles)', () => {
  it('stay within the bound whatever the calls across 30 tenants (generated)', async ({ vault }) => {
    const tenants: { headers: Record<string, string>; login: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const created = await vault.call('TenantCreate', { tenantname: `cn${randomUUID().slice(0, 8)}`, tenantorg: 'Connections' });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const headers = { 'x-bunker-token': created.body.xtoken as string };
      const profile = buildProfile();
      expect((await vault.call('UserCreate', { profile }, headers)).status).toBe(200);
      tenants.push({ headers, login: profile.login as string });
    }
    let most = 0;
    const sample = async () => (most = Math.max(most, await connections(vault)));
    const call = fc.record({ tenant: fc.nat(tenants.length - 1), op: fc.constantFrom('UserGet', 'UserUpdate', 'UserGet of nobody') });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 8, maxLength: 40 }), async (calls) => {
        const answers = await Promise.all([
          ...calls.map(({ tenant, op }) => {
            const t = tenants[tenant]!;
            if (op === 'UserUpdate') return vault.call('UserUpdate', { mode: 'login', identity: t.login, profile: { note: randomUUID() } }, t.headers);
            return vault.call('UserGet', { mode: 'login', identity: op === 'UserGet' ? t.login : 'nobody' }, t.headers);
          }),
          sample().then(() => ({ status: 200 })),
        ]);
        for (const a of answers) expect([200, 404]).toContain(a.status);
        await sample();
        expect(most, `${most} connections`).toBeLessThanOrEqual(BOUND);
      }),
      { numRuns: 15 },
    );
    // The dispatcher's passes over every tenant (each second) hold no connection per tenant either.
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 500));
      await sample();
    }
    expect(most, `${most} connections`).toBeLessThanOrEqual(BOUND);
  }, 120_000);
});
