// The three v1 endpoints: consent records (JSON and form-encoded), userapp create-or-update, session reads;
// v1 validation and v1 messages, in the JSON envelope; each call audited under its v2 name.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';

async function user(vault: TestVault) {
  const profile = buildProfile();
  const token = (await vault.call('UserCreate', { profile })).body.token as string;
  return { token, profile };
}

async function v1(vault: TestVault, method: 'GET' | 'POST', path: string, body?: string, type = 'application/json', token: string | null = vault.rootToken) {
  const res = await fetch(`${vault.url}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': type } : {}), ...(token ? { 'x-bunker-token': token } : {}) },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('v1', () => {
  it('records consent from JSON and form-encoded bodies, creating the brief on first use', async ({ vault }) => {
    const u = await user(vault);
    const json = await v1(vault, 'POST', `/v1/consent/email/${encodeURIComponent(u.profile.email)}/v1-newsletter`, JSON.stringify({ status: 'accept', consentmethod: 'web', referencecode: 'r1', expiration: '1m' }));
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(json.body.status).toBe('ok');
    const got = (await vault.call('AgreementGet', { mode: 'token', identity: u.token, brief: 'v1-newsletter' })).body.agreement;
    expect(got).toMatchObject({ status: 'active', agreementmethod: 'web', referencecode: 'r1' });
    expect(got.endtime).toBeGreaterThan(Date.now() / 1000 + 30 * 86_400);

    const form = await v1(vault, 'POST', `/v1/consent/token/${u.token}/v1-newsletter`, 'status=cancel&lastmodifiedby=dpo', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(200);
    expect((await vault.call('AgreementGet', { mode: 'token', identity: u.token, brief: 'v1-newsletter' })).body.agreement).toMatchObject({
      status: 'canceled',
      lastmodifiedby: 'dpo',
    });
    const legal = (await vault.call('LegalBasisListAgreements')).body.rows.find((r: { brief: string }) => r.brief === 'v1-newsletter');
    expect(legal).toMatchObject({ status: 'active', basistype: 'consent' });
    const events = (await vault.call('AuditListUserEvents', { mode: 'token', identity: u.token })).body.rows.map((r: { title: string }) => r.title);
    expect(events.filter((t: string) => t === 'AgreementAccept')).toHaveLength(2);
  });

  it('creates and then merges into a userapp record', async ({ vault }) => {
    const u = await user(vault);
    const created = await v1(vault, 'POST', `/v1/userapp/token/${u.token}/shop-app`, JSON.stringify({ plan: 'gold', items: 2 }));
    expect(created.body).toEqual({ status: 'ok', token: u.token });
    await v1(vault, 'POST', `/v1/userapp/login/${u.profile.login}/shop-app`, 'plan=silver&color=red', 'application/x-www-form-urlencoded');
    expect((await vault.call('AppdataGet', { mode: 'token', identity: u.token, appname: 'shop-app' })).body.appdata).toEqual({ plan: 'silver', items: 2, color: 'red' });
  });

  it('reads a session as session, when and data', async ({ vault }) => {
    const sessionuuid = randomUUID();
    await vault.call('SessionUpsert', { sessionuuid, sessiondata: { step: 3 } });
    const got = await v1(vault, 'GET', `/v1/session/session/${sessionuuid}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ status: 'ok', session: sessionuuid, data: { step: 3 } });
    expect(got.body.when).toBeGreaterThan(0);
    const missing = await v1(vault, 'GET', `/v1/session/session/${randomUUID()}`);
    expect(missing).toEqual({ status: 404, body: { status: 'error', message: 'session not found' } });
  });

  it('validates as v1 did and answers with v1 messages', async ({ vault }) => {
    const u = await user(vault);
    const noToken = await v1(vault, 'GET', `/v1/session/session/${randomUUID()}`, undefined, undefined, null);
    expect(noToken).toEqual({ status: 403, body: { status: 'error', message: 'missing X-Bunker-Token header' } });
    expect((await v1(vault, 'GET', `/v1/session/session/${randomUUID()}`, undefined, undefined, randomUUID())).body.message).toBe('access denied');
    expect((await v1(vault, 'POST', `/v1/consent/email/nobody@example.invalid/news`, '{}')).body).toEqual({ status: 'error', message: 'user not found' });
    expect((await v1(vault, 'POST', `/v1/consent/token/${u.token}/bad_brief!`, '{}')).body.message).toBe('bad brief format');
    expect((await v1(vault, 'POST', `/v1/consent/fax/${u.token}/news`, '{}')).body.message).toBe('bad mode');
    expect((await v1(vault, 'POST', `/v1/consent/token/not-a-uuid/news`, '{}')).body.message).toBe('bad token format');
    expect((await v1(vault, 'POST', `/v1/consent/token/${u.token}/news`, JSON.stringify({ status: 'perhaps' }))).body.message).toBe('bad status value');
    expect((await v1(vault, 'POST', `/v1/consent/token/${u.token}/news`, JSON.stringify({ expiration: 'soon' }))).body.message).toMatch(/expiration/);
    expect((await v1(vault, 'POST', `/v1/userapp/token/${u.token}/bad_app`, '{}')).body.message).toBe('bad appname format');
    expect((await v1(vault, 'POST', `/v1/userapp/token/${u.token}/app`, '[1]')).status).toBe(400);
    expect((await v1(vault, 'GET', '/v1/session/session/not-a-session')).body.message).toBe('bad session format');
    const broken = await v1(vault, 'POST', `/v1/userapp/token/${u.token}/app`, '{not json');
    expect(broken.status).toBe(400);
    expect(broken.body.status).toBe('error');
  });
});
