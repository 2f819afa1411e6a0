// UserLogout: a login xtoken ends itself (the portal's "Sign out"), at once, with an event on the person's trail;
// no other kind of caller can use it to end anything.
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';

async function person(vault: TestVault) {
  const { token } = (await vault.call('UserCreate', { profile: buildProfile() })).body as { token: string };
  const login = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token })).body.xtoken as string;
  return { token, ref: { mode: 'token', identity: token }, login: { 'x-bunker-token': login } };
}

describe('UserLogout', () => {
  it('ends the calling login xtoken at once and notes it on the person’s trail', async ({ vault }) => {
    const p = await person(vault);
    const other = (await vault.call('XTokenCreateForUser', p.ref)).body.xtoken as string;
    expect((await vault.call('UserGet', p.ref, p.login)).status).toBe(200);
    expect((await vault.call('UserLogout', {}, p.login)).body).toEqual({ status: 'ok' });
    expect((await vault.call('UserGet', p.ref, p.login)).status).toBe(403);
    expect((await vault.call('UserLogout', {}, p.login)).status).toBe(403);
    // Only that xtoken: the person's other sign-in goes on.
    expect((await vault.call('UserGet', p.ref, { 'x-bunker-token': other })).status).toBe(200);
    const events = (await vault.call('AuditListUserEvents', p.ref)).body.rows as { title: string }[];
    expect(events.map((e) => e.title)).toContain('UserLogout');
  });

  it('answers any other caller 400 and ends nothing', async ({ vault }) => {
    const p = await person(vault);
    const res = await vault.call('UserLogout', {});
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/login xtoken/);
    expect((await vault.call('UserGet', p.ref, p.login)).status).toBe(200);
  });
});
