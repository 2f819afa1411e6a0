// Passwordless login over HTTP: captcha, one-time code, login xtoken; single use, expiry, attempt limits.
import { describe, expect } from 'vitest';
import { test, it, buildProfile, type TestVault } from '../fixtures/vault.js';

const sent: { channel: string; to: string; code: string }[] = [];
let drawn = 0;

test.beforeAll(async ({ vault }) => {
  const logins = vault.api.services.logins;
  logins.notifier = { sendLoginCode: async (channel, to, code) => void sent.push({ channel, to, code }) };
  // A captcha whose answer the test knows: Cap1x, Cap2x, ...
  logins.drawCaptcha = () => ({ text: `Cap${++drawn}x`, data: '<svg xmlns="http://www.w3.org/2000/svg"/>' });
});

/** A public call: no token at all. */
async function pub(vault: TestVault, op: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${vault.url}/v2/${op}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** A fresh captcha and its answer. */
async function captcha(vault: TestVault): Promise<{ captchacode: string; answer: string }> {
  const res = await pub(vault, 'CaptchaCreate');
  expect(res.status).toBe(200);
  expect(res.body.image).toMatch(/^data:image\/svg\+xml;base64,/);
  return { captchacode: res.body.captchacode, answer: `Cap${drawn}x` };
}

describe('passwordless login', () => {
  it('sends a code for a solved captcha and trades it once for a login xtoken that reads the own record', async ({ vault }) => {
    const profile = buildProfile();
    const user = await vault.call('UserCreate', { profile });
    const c = await captcha(vault);
    // Answers are checked without regard to case.
    const pre = await pub(vault, 'UserPrelogin', { mode: 'email', identity: profile.email, code: c.answer.toLowerCase(), captchacode: c.captchacode });
    expect(pre.body).toEqual({ status: 'ok', result: 'done' });
    const mail = sent.at(-1)!;
    expect(mail).toMatchObject({ channel: 'email', to: profile.email });
    expect(mail.code).toMatch(/^\d{6}$/);
    const login = await pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode: mail.code });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ status: 'ok', token: user.body.token, xtoken: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const own = await vault.call('UserGet', { mode: 'token', identity: user.body.token }, { 'x-bunker-token': login.body.xtoken });
    expect(own.body.profile).toEqual(profile);
    // The code is single-use.
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode: mail.code })).body).toEqual({ status: 'error', message: 'login-error' });
  });

  it('lets only one of several racing logins spend a code', async ({ vault }) => {
    const profile = buildProfile();
    await vault.call('UserCreate', { profile });
    const c = await captcha(vault);
    await pub(vault, 'UserPrelogin', { mode: 'email', identity: profile.email, code: c.answer, captchacode: c.captchacode });
    const { code } = sent.at(-1)!;
    const tries = await Promise.all(Array.from({ length: 4 }, () => pub(vault, 'UserLogin', { mode: 'email', identity: profile.email, smscode: code })));
    expect(tries.filter((t) => t.body.status === 'ok')).toHaveLength(1);
  });

  it('refuses a wrong or spent captcha with captcha-error, and answers an unknown identity like a known one', async ({ vault }) => {
    const c = await captcha(vault);
    expect((await pub(vault, 'UserPrelogin', { mode: 'email', identity: 'x@example.com', code: 'wrong', captchacode: c.captchacode })).body).toEqual({
      status: 'error',
      message: 'captcha-error',
    });
    // Spent by the wrong try: even the right answer no longer works.
    expect((await pub(vault, 'UserPrelogin', { mode: 'email', identity: 'x@example.com', code: c.answer, captchacode: c.captchacode })).body.message).toBe('captcha-error');
    const before = sent.length;
    const d = await captcha(vault);
    const unknown = await pub(vault, 'UserPrelogin', { mode: 'email', identity: 'nobody-here@example.com', code: d.answer, captchacode: d.captchacode });
    expect(unknown.body).toEqual({ status: 'ok', result: 'done' });
    expect(sent.length).toBe(before);
    expect((await pub(vault, 'UserPrelogin', { mode: 'login', identity: 'x', code: 'x', captchacode: 'x' })).status).toBe(400);
    expect((await pub(vault, 'UserLogin', { mode: 'email', identity: 'nobody-here@example.com', smscode: '123456' })).body.message).toBe('login-error');
  });

  it('ends a code after five wrong tries', async ({ vault }) => {
    const profile = buildProfile();
    await vault.call('UserCreate', { profile });
    const c = await captcha(vault);
    await pub(vault, 'UserPrelogin', { mode: 'phone', identity: profile.phone, code: c.answer, captchacode: c.captchacode });
    const sms = sent.at(-1)!;
    expect(sms.channel).toBe('phone');
    const wrong = sms.code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) expect((await pub(vault, 'UserLogin', { mode: 'phone', identity: profile.phone, smscode: wrong })).body.message).toBe('login-error');
    expect((await pub(vault, 'UserLogin', { mode: 'phone', identity: profile.phone, smscode: sms.code })).body.message).toBe('login-error');
  });
});
