// Passwordless login, tried as an attacker would: guessing a person's code across many prelogins, burning the
// owner's code with guesses of one's own, flooding the public calls, and telling known identities from unknown
// ones by the time they take.
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile } from '../fixtures/vault.js';
import { inbox, prelogin, pub, solved, type Sent } from '../fixtures/login.js';

const it = vaultTest();

/** A code that is not `code`. */
const other = (code: string) => String((Number(code) + 1) % 1e8).padStart(8, '0');

describe('guessing a code', () => {
  it('is stopped by the lockout across several prelogins, which no new prelogin resets', async ({ vault }) => {
    const sent = inbox(vault);
    const profile = buildProfile();
    await vault.call('UserCreate', { profile });
    const guess = (smscode: string, loginid?: string) => pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode, ...(loginid ? { loginid } : {}) });
    // Ten wrong codes over four prelogins: three each at the first three (each code ends after three), one more.
    const issued: { loginid: string; code: string }[] = [];
    let failures = 0;
    while (failures < 10) {
      const { loginid } = await prelogin(vault, 'email', profile.email);
      const { code } = sent.at(-1)!;
      issued.push({ loginid, code });
      for (let i = 0; i < 3 && failures < 10; i++, failures++) expect((await guess(other(code), loginid)).body.message).toBe('login-error');
    }
    // The last prelogin's code is still live and has guesses left, but the person is locked out: even the right
    // code, bound or not, is refused, and a new prelogin sends no code at all.
    const last = issued.at(-1)!;
    expect((await guess(last.code, last.loginid)).body).toEqual({ status: 'error', message: 'login-error' });
    expect((await guess(last.code)).body.message).toBe('login-error');
    const before = sent.length;
    const again = await prelogin(vault, 'email', profile.email);
    expect(again.body).toEqual({ status: 'ok', result: 'done', loginid: expect.any(String) });
    expect(sent.length).toBe(before);
  });

  it('does not let a third party burn the owner\'s code: guesses without its loginid never touch it', async ({ vault }) => {
    const sent = inbox(vault);
    const profile = buildProfile();
    const user = await vault.call('UserCreate', { profile });
    const owner = await prelogin(vault, 'email', profile.email);
    const code = sent.at(-1)!.code;
    // The third party's own prelogin, and wrong guesses bound to it, to a made-up loginid, and to none: nine in
    // all, below the lockout.
    const theirs = await prelogin(vault, 'email', profile.email);
    const attempts = [
      ...Array.from({ length: 3 }, () => ({ smscode: other(code), loginid: theirs.loginid })),
      ...Array.from({ length: 3 }, () => ({ smscode: other(code), loginid: '00000000-0000-4000-8000-000000000000' })),
      ...Array.from({ length: 3 }, () => ({ smscode: other(code) })),
    ];
    for (const a of attempts) expect((await pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, ...a })).body.message).toBe('login-error');
    // The owner's code (with the owner's loginid) still opens the door.
    const login = await pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode: code, loginid: owner.loginid });
    expect(login.body).toMatchObject({ status: 'ok', token: user.body.token });
  });

  it('never accepts a code for another person, or one prelogin\'s code with another\'s loginid', async ({ vault }) => {
    const sent = inbox(vault);
    const a = buildProfile();
    const b = buildProfile();
    await vault.call('UserCreate', { profile: a });
    await vault.call('UserCreate', { profile: b });
    const first = await prelogin(vault, 'email', a.email);
    const codeA = sent.at(-1)!.code;
    const second = await prelogin(vault, 'email', a.email);
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: b.email, smscode: codeA })).body.message).toBe('login-error');
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: a.email, smscode: codeA, loginid: second.loginid })).body.message).toBe('login-error');
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: a.email, smscode: codeA, loginid: first.loginid })).body.status).toBe('ok');
  });
});

const limited = vaultTest({ env: { STRONGROOM_LOGIN_RATE_PER_ADDRESS: '5', STRONGROOM_LOGIN_RATE_PER_TENANT: '8', STRONGROOM_TRUST_PROXY: 'true' } });

describe('the public calls are rate limited', () => {
  limited('per client address, then per tenant whatever the address', async ({ vault }) => {
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await pub(vault, 'CaptchaCreate', undefined, from('203.0.113.1'))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Each login operation has a bucket of its own per address (security-edge-address.test.ts): CaptchaCreate's is spent.
    const refused = await pub(vault, 'CaptchaCreate', undefined, from('203.0.113.1'));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: 'error', message: 'Too many requests' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The tenant's budget (8 a minute) was spent by the first address's 5 accepted calls (a call its address's limit
    // refused spends none); three more from anyone, then every address is refused.
    for (const ip of ['203.0.113.2', '203.0.113.3', '203.0.113.4']) expect((await pub(vault, 'CaptchaCreate', undefined, from(ip))).status).toBe(200);
    expect((await pub(vault, 'CaptchaCreate', undefined, from('203.0.113.5'))).status).toBe(429);
  });
});

describe('known and unknown identities', () => {
  it('get the same answer, and the code is delivered after it, off the request path', async ({ vault }) => {
    const sent: Sent[] = [];
    // A mail server that takes 800 ms: were the code sent on the request path, a known identity would show it.
    vault.api.services.logins.notifier = {
      channels: new Set(['email', 'phone']),
      sendLoginCode: async (channel, to, code) => {
        await new Promise((r) => setTimeout(r, 800));
        sent.push({ channel, to, code });
      },
    };
    const profile = buildProfile();
    await vault.call('UserCreate', { profile });
    const timed = async (identity: string) => {
      const c = await solved(vault);
      const started = performance.now();
      const res = await pub(vault, 'UserPrelogin', { mode: 'email', identity, ...c });
      return { ms: performance.now() - started, body: res.body };
    };
    const known = [];
    const unknown = [];
    for (let i = 0; i < 5; i++) {
      known.push(await timed(profile.email));
      unknown.push(await timed(`nobody-${i}@example.com`));
    }
    for (const r of [...known, ...unknown]) expect(r.body).toEqual({ status: 'ok', result: 'done', loginid: expect.any(String) });
    expect(Math.max(...known.map((k) => k.ms))).toBeLessThan(800);
    await vault.api.services.logins.settled();
    expect(sent.filter((s) => s.to === profile.email)).toHaveLength(5);
  });
});
