// The HTTP edge against the security review: a valid credential is never refused for its client address, and
// failures beyond their budget are throttled with a growing back-off (N2); the address is taken a set number of
// hops from the right of X-Forwarded-For (N3); anonymous shared-record floods are limited and leave no audit event
// per call (N10); authenticated calls are limited per credential (N7).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

const BUDGET = 5;
const it = vaultTest({
  env: {
    STRONGROOM_TRUST_PROXY: 'true',
    STRONGROOM_PROXY_HOPS: '2',
    STRONGROOM_AUTH_FAILURES_PER_ADDRESS: String(BUDGET),
    STRONGROOM_AUTH_FAILURES_PER_PREFIX: '8',
    STRONGROOM_AUTH_FAILURES_PER_TENANT: '12',
    STRONGROOM_AUTH_BLOCK_SECONDS: '4',
    STRONGROOM_SHARED_RATE_PER_ADDRESS: '10',
    STRONGROOM_CALLS_PER_LOGIN_XTOKEN: '5',
  },
});

let addresses = 0;
/** A client address no other test of this file uses. */
const fresh = () => `198.51.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;
/** Headers of a call from `client` through two proxies: the ingress wrote the client's address, this peer its own. */
const via = (client: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': `${client}, 10.0.0.1`, ...extra });
/** A wrong token no other call shares (so only the bound under test is reached). */
const wrong = () => ({ 'x-bunker-token': randomUUID() });
const guess = (vault: TestVault, headers: Record<string, string>) => vault.call('UserGet', { mode: 'login', identity: 'nobody' }, headers);

describe('N2: a valid credential is never refused for its address', () => {
  it('answers root 200 after 60 bad tokens from the same address, which are throttled past the budget', async ({ vault }) => {
    const from = fresh();
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await guess(vault, via(from, wrong()))).status);
    expect(statuses.slice(0, BUDGET)).toEqual(Array(BUDGET).fill(403));
    expect(new Set(statuses.slice(BUDGET))).toEqual(new Set([429]));
    const root = await vault.call('SystemGetSystemStats', {}, via(from));
    expect(root.status).toBe(200);
  });

  it('backs off a failing address for longer each time it fails again past its budget', async ({ vault }) => {
    const from = fresh();
    for (let i = 0; i < BUDGET; i++) expect((await guess(vault, via(from, wrong()))).status).toBe(403);
    const first = await guess(vault, via(from, wrong()));
    expect(first.status).toBe(429);
    expect(first.body).toEqual({ status: 'error', message: 'Too many requests' });
    expect(first.headers.get('retry-after')).toBe('1');
    // Once the first back-off has passed, the next failure doubles it.
    await expect
      .poll(async () => (await guess(vault, via(from, wrong()))).headers.get('retry-after'), { interval: 250, timeout: 5000 })
      .toBe('2');
  });

  it('bounds failures per token prefix and per named tenant across addresses, valid calls still served', async ({ vault }) => {
    const prefix = randomUUID().slice(0, 8);
    const sharing = () => ({ 'x-bunker-token': `${prefix}${randomUUID().slice(8)}` });
    const byPrefix: number[] = [];
    for (let i = 0; i < 10; i++) byPrefix.push((await guess(vault, via(fresh(), sharing()))).status);
    expect(byPrefix).toEqual([...Array(8).fill(403), 429, 429]);
    const tenant = `t${randomUUID().slice(0, 8)}`;
    const byTenant: number[] = [];
    for (let i = 0; i < 14; i++) byTenant.push((await guess(vault, via(fresh(), { ...wrong(), 'x-bunker-tenant': tenant }))).status);
    expect(byTenant).toEqual([...Array(12).fill(403), 429, 429]);
    expect((await vault.call('SystemGetSystemStats', {}, via(fresh(), { 'x-bunker-tenant': tenant }))).status).not.toBe(429);
    expect((await guess(vault, via(fresh(), wrong()))).status).toBe(403);
  });

  it('never refuses a valid credential and throttles exactly the failures past the budget, in any interleaving', async ({ vault }) => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ from: fc.nat(1), valid: fc.boolean() }), { minLength: 14, maxLength: 24 }), async (calls) => {
        const shared = [fresh(), fresh()];
        const failures = [0, 0];
        for (const call of calls) {
          const headers = via(shared[call.from]!, call.valid ? {} : wrong());
          const { status } = await vault.call('SystemGetSystemStats', {}, headers);
          if (call.valid) expect(status).toBe(200);
          else expect(status).toBe(++failures[call.from]! <= BUDGET ? 403 : 429);
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe('N3: the client address is the configured number of hops from the right', () => {
  it('attributes a chain with a forged leftmost entry to the hop the ingress wrote', async ({ vault }) => {
    const [attacker, victim] = [fresh(), fresh()];
    // Each guess forges the victim (and then noise) leftmost: the failures are the attacker's.
    for (let i = 0; i <= BUDGET; i++) await guess(vault, { 'x-forwarded-for': `${victim}, ${attacker}, 10.0.0.1`, ...wrong() });
    expect((await guess(vault, { 'x-forwarded-for': `203.0.113.${octet()}, ${attacker}, 10.0.0.1`, ...wrong() })).status).toBe(429);
    expect((await guess(vault, via(victim, wrong()))).status).toBe(403);
  });
});
const octet = () => Math.floor(Math.random() * 250) + 1;

const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query(text, params);
const mainEvents = async (vault: TestVault) =>
  Number((await sql(vault, 'select (select count(*) from tenant_1.audit_events) + (select count(*) from tenant_1.audit_queue) as n'))[0]!.n);
const sharedGet = (vault: TestVault, recorduuid: string, from: string) =>
  fetch(`${vault.url}/v2/SharedRecordGet`, { method: 'POST', headers: { 'content-type': 'application/json', ...via(from) }, body: JSON.stringify({ recorduuid }) });

describe('N10: anonymous SharedRecordGet is limited', () => {
  it('answers a flood of misses 429 once past the refusal budget, with no audit event per call', async ({ vault }) => {
    const from = fresh();
    const before = await mainEvents(vault);
    const statuses: number[] = [];
    for (let n = 0; n < 20; n++) statuses.push((await sharedGet(vault, randomUUID(), from)).status);
    expect(statuses).toEqual([...Array(BUDGET).fill(404), ...Array(20 - BUDGET).fill(429)]);
    expect(await mainEvents(vault)).toBe(before);
    // A valid credential from that address is still served.
    expect((await vault.call('SystemGetSystemStats', {}, via(from))).status).toBe(200);
  });

  it('limits retrievals of a live record per address, auditing only those it answers', async ({ vault }) => {
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const { recorduuid } = (await vault.call('SharedRecordCreate', { mode: 'token', identity: user.body.token, fields: 'name' })).body;
    const from = fresh();
    const statuses: number[] = [];
    for (let n = 0; n < 13; n++) statuses.push((await sharedGet(vault, recorduuid, from)).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429, 429]);
    const events = await vault.call('AuditListUserEvents', { mode: 'token', identity: user.body.token, limit: 100 });
    expect(events.body.rows.filter((r: { title: string }) => r.title === 'SharedRecordGet')).toHaveLength(10);
    // Another address is served.
    expect((await sharedGet(vault, recorduuid, fresh())).status).toBe(200);
  });
});

describe('N7: authenticated calls are limited per credential', () => {
  it('refuses a login xtoken past its calls per window, 429 with Retry-After, and leaves other credentials alone', async ({ vault }) => {
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const ref = { mode: 'token', identity: user.body.token };
    const login = (await vault.call('XTokenCreateForUser', ref)).body.xtoken as string;
    const other = (await vault.call('XTokenCreateForUser', ref)).body.xtoken as string;
    const statuses: number[] = [];
    for (let n = 0; n < 7; n++) statuses.push((await vault.call('UserGet', ref, { 'x-bunker-token': login })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const refused = await vault.call('UserGet', ref, { 'x-bunker-token': login });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await vault.call('UserGet', ref, { 'x-bunker-token': other })).status).toBe(200);
    for (let n = 0; n < 10; n++) expect((await vault.call('UserGet', ref)).status).toBe(200);
  });
});
