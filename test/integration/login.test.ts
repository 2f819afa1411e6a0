// Passwordless login over HTTP: proof-of-work challenge, one-time code bound to its prelogin, login xtoken; single
// use, expiry, attempt limits. The attacks on it (brute force, burning codes, timing) are in abuse-login.test.ts.
import { describe, expect } from 'vitest';
import { test, it, buildProfile } from '../fixtures/vault.js';
import { inbox, prelogin, pub, solved, type Sent } from '../fixtures/login.js';

let sent: Sent[] = [];
test.beforeAll(async ({ vault }) => {
  sent = inbox(vault);
});

describe('passwordless login', () => {
  it('sends a code for a solved challenge and trades it once for a login xtoken that reads the own record', async ({ vault }) => {
    const profile = buildProfile();
    const user = await vault.call('UserCreate', { profile });
    const c = await pub(vault, 'CaptchaCreate');
    expect(c.body).toMatchObject({ status: 'ok', captchacode: expect.stringMatching(/^[0-9a-f-]{36}$/), challenge: { algorithm: 'SHA-256', maxnumber: 1000 } });
    expect(c.body.image).toBeUndefined();
    const pre = await prelogin(vault, 'email', `  ${profile.email.toUpperCase()} `);
    expect(pre.body).toEqual({ status: 'ok', result: 'done', loginid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const mail = sent.at(-1)!;
    // Sent to the address stored in the profile, never to the string typed.
    expect(mail).toMatchObject({ channel: 'email', to: profile.email });
    expect(mail.code).toMatch(/^\d{8}$/);
    const login = await pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode: mail.code, loginid: pre.loginid });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ status: 'ok', token: user.body.token, xtoken: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const own = await vault.call('UserGet', { mode: 'token', identity: user.body.token }, { 'x-bunker-token': login.body.xtoken });
    expect(own.body.profile).toEqual(profile);
    // The code is single-use, with or without its loginid.
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode: mail.code, loginid: pre.loginid })).body).toEqual({ status: 'error', message: 'login-error' });
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode: mail.code })).body).toEqual({ status: 'error', message: 'login-error' });
  });

  it('takes a code without a loginid, as the SDKs send UserLogin', async ({ vault }) => {
    const profile = buildProfile();
    const user = await vault.call('UserCreate', { profile });
    await prelogin(vault, 'email', profile.email);
    const login = await pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode: sent.at(-1)!.code });
    expect(login.body).toMatchObject({ status: 'ok', token: user.body.token });
  });

  it('lets only one of several racing logins spend a code', async ({ vault }) => {
    const profile = buildProfile();
    await vault.call('UserCreate', { profile });
    const { loginid } = await prelogin(vault, 'email', profile.email);
    const { code } = sent.at(-1)!;
    const tries = await Promise.all(Array.from({ length: 4 }, () => pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode: code, loginid })));
    expect(tries.filter((t) => t.body.status === 'ok')).toHaveLength(1);
  });

  it('refuses a wrong or spent solution with captcha-error, and answers an unknown identity like a known one', async ({ vault }) => {
    const c = await solved(vault);
    const wrong = String((Number(c.code) + 1) % 1000);
    expect((await pub(vault, 'UserPrelogin', { mode: 'email', identity: 'x@example.com', code: wrong, captchacode: c.captchacode })).body).toEqual({
      status: 'error',
      message: 'captcha-error',
    });
    // Spent by the wrong try: even the right solution no longer works.
    expect((await pub(vault, 'UserPrelogin', { mode: 'email', identity: 'x@example.com', ...c })).body.message).toBe('captcha-error');
    // A solution is not a free-form text, and a made-up challenge id is no challenge.
    expect((await pub(vault, 'UserPrelogin', { mode: 'email', identity: 'x@example.com', code: 'abc', captchacode: c.captchacode })).body.message).toBe('captcha-error');
    expect((await pub(vault, 'UserPrelogin', { mode: 'email', identity: 'x@example.com', code: '1', captchacode: '00000000-0000-4000-8000-000000000000' })).body.message).toBe('captcha-error');
    const before = sent.length;
    const unknown = await prelogin(vault, 'email', 'nobody-here@example.com');
    expect(unknown.body).toEqual({ status: 'ok', result: 'done', loginid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(sent.length).toBe(before);
    expect((await pub(vault, 'UserPrelogin', { mode: 'login', identity: 'x', code: 'x', captchacode: 'x' })).status).toBe(400);
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: 'nobody-here@example.com', smscode: '12345678', loginid: unknown.loginid })).body.message).toBe('login-error');
  });

  it('ends a code after three wrong tries at it', async ({ vault }) => {
    const profile = buildProfile();
    await vault.call('UserCreate', { profile });
    const { loginid } = await prelogin(vault, 'phone', profile.phone);
    const sms = sent.at(-1)!;
    expect(sms).toMatchObject({ channel: 'phone', to: profile.phone });
    const wrong = sms.code === '00000000' ? '00000001' : '00000000';
    for (let i = 0; i < 3; i++) expect((await pub(vault, 'UserLogin', { mode: 'phone', identity: profile.phone, smscode: wrong, loginid })).body.message).toBe('login-error');
    expect((await pub(vault, 'UserLogin', { mode: 'phone', identity: profile.phone, smscode: sms.code, loginid })).body.message).toBe('login-error');
  });

  it('refuses a phone login with a clear error when no SMS channel is configured', async ({ vault }) => {
    const profile = buildProfile();
    await vault.call('UserCreate', { profile });
    inbox(vault, ['email']);
    try {
      const c = await solved(vault);
      const res = await pub(vault, 'UserPrelogin', { mode: 'phone', identity: profile.phone, ...c });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 'error', message: 'Login by phone is not available: no SMS channel is configured' });
    } finally {
      sent = inbox(vault);
    }
  });
});
