// The public login calls against the security review (N9): a flood of logins in a tenant does not stop a client
// holding a live loginid, an unknown tenant name has a bucket of its own (not the main tenant's), and only guesses
// that name a loginid count toward a person's lockout.
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { inbox, prelogin, pub, type Sent } from '../fixtures/login.js';

const PER_TENANT = 12;
const it = vaultTest({
  env: {
    STRONGROOM_TRUST_PROXY: 'true',
    STRONGROOM_LOGIN_RATE_PER_ADDRESS: '1000',
    STRONGROOM_LOGIN_RATE_PER_TENANT: String(PER_TENANT),
    STRONGROOM_LOGIN_MAX_FAILURES: '3',
  },
});

/** The same, with room in the tenant's bucket for a guesser spread over many addresses. */
const roomy = vaultTest({
  env: { STRONGROOM_TRUST_PROXY: 'true', STRONGROOM_LOGIN_RATE_PER_ADDRESS: '1000', STRONGROOM_LOGIN_RATE_PER_TENANT: '1000', STRONGROOM_LOGIN_MAX_FAILURES: '3' },
});

let addresses = 0;
const from = (tenant?: string) => ({ 'x-forwarded-for': `192.0.2.${++addresses}`, ...(tenant ? { 'x-bunker-tenant': tenant } : {}) });

/** A tenant of its own, a person in it, and the codes the vault sends. */
async function tenantWithPerson(vault: TestVault): Promise<{ name: string; email: string; sent: Sent[] }> {
  const name = `lg${Math.random().toString(36).slice(2, 8)}`;
  const admin = (await vault.call('TenantCreate', { tenantname: name, tenantorg: name })).body.xtoken as string;
  const profile = buildProfile();
  expect((await vault.call('UserCreate', { profile }, { 'x-bunker-token': admin })).status).toBe(200);
  return { name, email: profile.email as string, sent: inbox(vault) };
}

const wrongOf = (code: string) => (code === '00000000' ? '00000001' : '00000000');

describe('N9: login buckets', () => {
  it('serves a client holding a live loginid through a flood of logins in its tenant', async ({ vault }) => {
    const t = await tenantWithPerson(vault);
    const pre = await prelogin(vault, 'email', t.email, from(t.name));
    const { code } = t.sent.at(-1)!;
    const flood: number[] = [];
    for (let n = 0; n < PER_TENANT + 2; n++) flood.push((await pub(vault, 'CaptchaCreate', undefined, from(t.name))).status);
    expect(flood.at(-1)).toBe(429);
    // A guess that names no live attempt waits with the flood.
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: code }, from(t.name))).status).toBe(429);
    const login = await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: code, loginid: pre.loginid }, from(t.name));
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ status: 'ok', xtoken: expect.any(String) });
  });

  it('gives an unknown tenant name a bucket of its own, not the main tenant’s', async ({ vault }) => {
    const unknown = `nosuch${Math.random().toString(36).slice(2, 8)}`;
    const statuses: number[] = [];
    for (let n = 0; n < PER_TENANT + 2; n++) statuses.push((await pub(vault, 'CaptchaCreate', undefined, from(unknown))).status);
    expect(statuses).toEqual([...Array(PER_TENANT).fill(200), 429, 429]);
    expect((await pub(vault, 'CaptchaCreate', undefined, from())).status).toBe(200);
    // A known tenant's name is treated alike: its own bucket, untouched by the unknown one's.
    const t = await tenantWithPerson(vault);
    expect((await pub(vault, 'CaptchaCreate', undefined, from(t.name))).status).toBe(200);
  });

  it('does not lock a person out for guesses that name no loginid', async ({ vault }) => {
    const t = await tenantWithPerson(vault);
    for (let n = 0; n < 5; n++) {
      const guess = await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: String(10_000_000 + n) }, from(t.name));
      expect(guess.body).toEqual({ status: 'error', message: 'login-error' });
    }
    const pre = await prelogin(vault, 'email', t.email, from(t.name));
    const login = await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: t.sent.at(-1)!.code, loginid: pre.loginid }, from(t.name));
    expect(login.body).toMatchObject({ status: 'ok', xtoken: expect.any(String) });
  });

  it('still locks a person out for wrong guesses that name a loginid', async ({ vault }) => {
    const t = await tenantWithPerson(vault);
    const pre = await prelogin(vault, 'email', t.email, from(t.name));
    const wrong = wrongOf(t.sent.at(-1)!.code);
    for (let n = 0; n < 3; n++) await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: wrong, loginid: pre.loginid }, from(t.name));
    const sentBefore = t.sent.length;
    const again = await prelogin(vault, 'email', t.email, from(t.name));
    // Locked out: the answer is the same, but no code is sent.
    expect(again.body).toEqual({ status: 'ok', result: 'done', loginid: expect.any(String) });
    expect(t.sent).toHaveLength(sentBefore);
  });

  it('stops guesses that name no loginid after their own tally from that address, while other addresses and loginids go through', async ({ vault }) => {
    const t = await tenantWithPerson(vault);
    const pre = await prelogin(vault, 'email', t.email, from(t.name));
    const { code } = t.sent.at(-1)!;
    const attacker = from(t.name);
    for (let n = 0; n < 3; n++) await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: wrongOf(code) }, attacker);
    // Past the tally (3 here), a guess naming no loginid from that address is refused, the right code included.
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: code }, attacker)).body).toEqual({ status: 'error', message: 'login-error' });
    // The person (or the service acting for them, from its own address) is not stopped by it.
    const login = await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: code, loginid: pre.loginid }, from(t.name));
    expect(login.body).toMatchObject({ status: 'ok', xtoken: expect.any(String) });
    await prelogin(vault, 'email', t.email, from(t.name));
    const sdk = await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: t.sent.at(-1)!.code }, from(t.name));
    expect(sdk.body).toMatchObject({ status: 'ok', xtoken: expect.any(String) });
  });

  roomy('bounds guesses naming no loginid spread over many addresses (ten times the tally over all of them)', async ({ vault }) => {
    const t = await tenantWithPerson(vault);
    await prelogin(vault, 'email', t.email, from(t.name));
    const { code } = t.sent.at(-1)!;
    // 3 per address is the tally: 30 guesses over 15 addresses, 2 each, reach the bound over all addresses.
    for (let n = 0; n < 15; n++) {
      const address = from(t.name);
      for (let k = 0; k < 2; k++) await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: wrongOf(code) }, address);
    }
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: t.email, smscode: code }, from(t.name))).body).toEqual({ status: 'error', message: 'login-error' });
  });
});
