// Client addresses against a second attack: clients sharing an address do not stop a person partway through
// logging in (a live loginid is served through the address's bucket, and CaptchaCreate spends a bucket of its own);
// a valid shared record is served to an address whose misses were throttled; an IPv6 client is counted by its /64,
// a port is no new client, and an entry that is not an address is not believed.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { inbox, prelogin, pub } from '../fixtures/login.js';

const PER_ADDRESS = 4;
const BUDGET = 5;
const it = vaultTest({
  env: {
    STRONGROOM_TRUST_PROXY: 'true',
    STRONGROOM_LOGIN_RATE_PER_ADDRESS: String(PER_ADDRESS),
    STRONGROOM_AUTH_FAILURES_PER_ADDRESS: String(BUDGET),
    STRONGROOM_AUTH_BLOCK_SECONDS: '30',
  },
});

let addresses = 0;
/** A client address no other test of this file uses. */
const fresh = () => `203.0.113.${++addresses}`;
const from = (address: string) => ({ 'x-forwarded-for': address });
const guess = (vault: TestVault, address: string) => vault.call('UserGet', { mode: 'login', identity: 'nobody' }, { 'x-forwarded-for': address, 'x-bunker-token': randomUUID() });

/** A person in the main tenant, their email and the codes the vault sends. */
async function personWithInbox(vault: TestVault) {
  const profile = buildProfile();
  expect((await vault.call('UserCreate', { profile })).status).toBe(200);
  return { email: profile.email as string, sent: inbox(vault) };
}

describe('a person partway through logging in', () => {
  it('is served after other clients of the address spent its CaptchaCreate calls', async ({ vault }) => {
    const p = await personWithInbox(vault);
    const address = fresh();
    const pre = await prelogin(vault, 'email', p.email, from(address));
    const { code } = p.sent.at(-1)!;
    const captchas: number[] = [];
    for (let n = 0; n < PER_ADDRESS + 2; n++) captchas.push((await pub(vault, 'CaptchaCreate', undefined, from(address))).status);
    expect(captchas.at(-1)).toBe(429);
    const login = await pub(vault, 'UserLogin', { mode: 'email', identity: p.email, smscode: code, loginid: pre.loginid }, from(address));
    expect(login.status).toBe(200);
  });

  it('is served with a live loginid after the address spent its UserLogin calls', async ({ vault }) => {
    const p = await personWithInbox(vault);
    const address = fresh();
    const pre = await prelogin(vault, 'email', p.email, from(address));
    const { code } = p.sent.at(-1)!;
    const guesses: number[] = [];
    for (let n = 0; n < PER_ADDRESS + 1; n++) guesses.push((await pub(vault, 'UserLogin', { mode: 'email', identity: p.email, smscode: '00000000' }, from(address))).status);
    expect(guesses.at(-1)).toBe(429);
    // A loginid that is not live waits with the others.
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: p.email, smscode: code, loginid: randomUUID() }, from(address))).status).toBe(429);
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: p.email, smscode: code, loginid: pre.loginid }, from(address))).status).toBe(200);
  });
});

describe('shared records from a throttled address', () => {
  it('serves a valid record after the address spent its refusals on bad tokens; misses stay throttled', async ({ vault }) => {
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const { recorduuid } = (await vault.call('SharedRecordCreate', { mode: 'token', identity: user.body.token, fields: 'name' })).body;
    const address = fresh();
    for (let i = 0; i <= BUDGET + 2; i++) await guess(vault, address);
    expect((await guess(vault, address)).status).toBe(429);
    expect((await pub(vault, 'SharedRecordGet', { recorduuid }, from(address))).status).toBe(200);
    expect((await pub(vault, 'SharedRecordGet', { recorduuid: randomUUID() }, from(address))).status).toBe(429);
  });
});

describe('addresses as rate-limit keys', () => {
  it('counts the bad tokens of one IPv6 /64 together', async ({ vault }) => {
    const net = `2001:db8:${++addresses}:2::`;
    const statuses: number[] = [];
    for (let i = 1; i <= BUDGET + 3; i++) statuses.push((await guess(vault, `${net}${i.toString(16)}`)).status);
    expect(statuses.at(-1)).toBe(429);
    // Another /64 is another client.
    expect((await guess(vault, `2001:db8:${addresses}:3::1`)).status).toBe(403);
  });

  it('counts the CaptchaCreate calls of one /64 together', async ({ vault }) => {
    const net = `2001:db8:${++addresses}:7`;
    const statuses: number[] = [];
    for (let i = 1; i <= PER_ADDRESS + 2; i++) statuses.push((await pub(vault, 'CaptchaCreate', undefined, from(`${net}:${i}::${i}`))).status);
    expect(statuses.at(-1)).toBe(429);
  });

  it('counts an address with a port as that address, and an entry that is not an address as the peer', async ({ vault }) => {
    const address = fresh();
    const ported: number[] = [];
    for (let i = 1; i <= BUDGET + 3; i++) ported.push((await guess(vault, `${address}:${1000 + i}`)).status);
    expect(ported.at(-1)).toBe(429);
    // The peer (this test's own connection) is the key of names that are no address: they are counted together.
    const named: number[] = [];
    for (let i = 1; i <= BUDGET + 3; i++) named.push((await guess(vault, `client-${randomUUID()}`)).status);
    expect(named.at(-1)).toBe(429);
  });
});
