// The database goes away under load, as in a PostgreSQL restart or failover: every connection is cut and new ones
// are refused for a while (through a link of the test's own, so other test files' databases are untouched).
// Every call answers 200 or a retryable 503 with Retry-After, never a 500 or a hang; /readyz says so; the vault
// recovers by itself; and every acknowledged write is there afterwards.
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { usingPostgres } from '../fixtures/database.js';

const it = vaultTest({ linked: true });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ready(vault: TestVault): Promise<number> {
  return (await fetch(`${vault.url}/readyz`)).status;
}

describe.skipIf(!usingPostgres())('a database outage (PostgreSQL only: the embedded database is in the process and cannot be cut off)', () => {
  it('answers 503 while the database is away and recovers, losing no acknowledged write', async ({ vault }) => {
    const link = vault.link!;
    const workers = 16;
    const users = await Promise.all(Array.from({ length: workers }, async () => (await vault.call('UserCreate', { profile: buildProfile({ n: 0 }) })).body.token as string));
    const statuses = new Map<number, number>();
    const bad: unknown[] = [];
    /** Per worker: the last value a 200 acknowledged, and every value tried after it. */
    const acked = users.map(() => ({ value: 0, triedSince: [] as number[] }));
    let stop = false;
    const work = users.map(async (token, w) => {
      for (let n = 1; !stop; n++) {
        const write = n % 2 === 0;
        const res = write
          ? await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { n } })
          : await vault.call('UserGet', { mode: 'token', identity: token });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 503) {
          if (res.body.status !== 'error' || typeof res.body.message !== 'string' || res.headers.get('retry-after') !== '1') bad.push(res.body);
        } else if (res.status !== 200) {
          bad.push({ status: res.status, body: res.body });
        }
        if (write) {
          if (res.status === 200) acked[w] = { value: n, triedSince: [] };
          else acked[w]!.triedSince.push(n);
        }
        if (res.status === 503) await sleep(20);
      }
    });
    await sleep(800);
    link.cut();
    await sleep(1500);
    expect(await ready(vault)).toBe(503);
    link.restore();
    await sleep(1500);
    link.cut();
    await sleep(800);
    link.restore();
    // Recovers by itself: ready again, and calls succeed.
    let readyAgain = false;
    for (let i = 0; i < 50 && !readyAgain; i++) {
      readyAgain = (await ready(vault)) === 200;
      if (!readyAgain) await sleep(100);
    }
    expect(readyAgain).toBe(true);
    await sleep(500);
    stop = true;
    await Promise.all(work);
    expect(bad).toEqual([]);
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    // Nothing acknowledged is lost: each profile holds its last acknowledged value, or one tried after it (a
    // write whose answer was lost with the connection may still have committed).
    for (const [w, token] of users.entries()) {
      const now = await vault.call('UserGet', { mode: 'token', identity: token });
      expect(now.status).toBe(200);
      expect([acked[w]!.value, ...acked[w]!.triedSince]).toContain(now.body.profile.n);
    }
  });
});
