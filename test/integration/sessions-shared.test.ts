// Sessions and shared records over HTTP: linking, expiry (sliding and final, capped), sealing, the public read
// of a shared record with only its chosen fields, and the error cases.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { nowSeconds } from '../../api/vault/durations.js';

const it = vaultTest({ env: { STRONGROOM_SESSION_MAX_SECONDS: '7200' } });

async function user(vault: TestVault, extra: Record<string, unknown> = {}) {
  const profile = buildProfile(extra);
  const res = await vault.call('UserCreate', { profile });
  return { token: res.body.token as string, profile };
}

const db = (vault: TestVault) => vault.api.services.db.orm.em.getConnection();

describe('sessions', () => {
  it('are upserted, read, linked to the person their data names, listed and deleted', async ({ vault }) => {
    const u = await user(vault);
    const sessionuuid = randomUUID();
    const up = await vault.call('SessionUpsert', { sessionuuid, sessiondata: { email: u.profile.email, cart: [1, 2] } });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const got = await vault.call('SessionGet', { sessionuuid: sessionuuid.toUpperCase() });
    expect(got.body).toMatchObject({ status: 'ok', sessionuuid, sessiondata: { email: u.profile.email, cart: [1, 2] }, token: u.token });
    // Replacing keeps one session with the new data.
    await vault.call('SessionUpsert', { sessionuuid, sessiondata: { token: u.token, step: 2 } });
    const other = randomUUID();
    await vault.call('SessionUpsert', { sessionuuid: other, sessiondata: { theme: 'dark' }, mode: 'token', identity: u.token });
    const list = await vault.call('SessionListUserSessions', { mode: 'login', identity: u.profile.login });
    expect(list.body.total).toBe(2);
    expect(list.body.rows.map((r: { sessionuuid: string }) => r.sessionuuid).sort()).toEqual([sessionuuid, other].sort());
    expect(list.body.rows.find((r: { sessionuuid: string }) => r.sessionuuid === sessionuuid).sessiondata).toEqual({ token: u.token, step: 2 });
    expect((await vault.call('SessionDelete', { sessionuuid })).status).toBe(200);
    expect((await vault.call('SessionGet', { sessionuuid })).status).toBe(404);
    expect((await vault.call('SessionDelete', { sessionuuid })).status).toBe(404);
    // Anonymous sessions are allowed; they belong to no one.
    const anon = randomUUID();
    expect((await vault.call('SessionUpsert', { sessionuuid: anon, sessiondata: { visits: 1 } })).status).toBe(200);
    expect((await vault.call('SessionGet', { sessionuuid: anon })).body.token).toBeUndefined();
    // Sessions go with their person.
    await vault.call('UserDelete', { mode: 'token', identity: u.token });
    expect((await vault.call('SessionGet', { sessionuuid: other })).status).toBe(404);
  });

  it('answer 404 for an unknown person and 400 naming the field', async ({ vault }) => {
    const nobody = await vault.call('SessionUpsert', { sessionuuid: randomUUID(), sessiondata: { email: 'nobody@example.invalid' } });
    expect(nobody.status).toBe(404);
    expect(nobody.body.message).toBe('The user record was not found');
    expect((await vault.call('SessionUpsert', { sessionuuid: 'not-a-uuid', sessiondata: {} })).body.message).toBe('Bad UUID');
    expect((await vault.call('SessionUpsert', { sessionuuid: randomUUID() })).body.message).toBe('Missing API request parameters: sessiondata');
    expect((await vault.call('SessionUpsert', { sessionuuid: randomUUID(), sessiondata: [1] })).body.message).toMatch(/sessiondata/);
    expect((await vault.call('SessionUpsert', { sessionuuid: randomUUID(), sessiondata: {}, finaltime: 'later' })).body.message).toMatch(/finaltime/);
    expect((await vault.call('SessionGet', {})).body.message).toBe('Missing API request parameters: sessionuuid');
    const missing = await vault.call('SessionGet', { sessionuuid: randomUUID() });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('The session record was not found');
    expect((await vault.call('SessionListUserSessions', { mode: 'email', identity: 'nobody@example.invalid' })).status).toBe(404);
  });

  it('expire at their final time, capped by the maximum lifetime, and are swept', async ({ vault }) => {
    const sessionuuid = randomUUID();
    const now = nowSeconds();
    const res = await vault.call('SessionUpsert', { sessionuuid, sessiondata: { a: 1 }, finaltime: '30d' });
    // 30 days asked, the configured two hours given.
    expect(res.body.expirationtime).toBeGreaterThanOrEqual(now + 7200);
    expect(res.body.expirationtime).toBeLessThanOrEqual(nowSeconds() + 7200);
    const short = await vault.call('SessionUpsert', { sessionuuid: randomUUID(), sessiondata: { a: 1 }, finaltime: '600s' });
    expect(short.body.expirationtime).toBeLessThanOrEqual(nowSeconds() + 600);
    await db(vault).execute('update tenant_1.sessions set expires = ? where sessionuuid = ?', [nowSeconds() - 1, sessionuuid]);
    expect((await vault.call('SessionGet', { sessionuuid })).status).toBe(404);
    await vault.api.services.sweeper.sweepOnce();
    const [row] = await db(vault).execute('select count(*)::int as n from tenant_1.sessions where sessionuuid = ?', [sessionuuid]);
    expect(row!.n).toBe(0);
  });

  it('with a sliding time live on from their last read', async ({ vault }) => {
    const sessionuuid = randomUUID();
    await vault.call('SessionUpsert', { sessionuuid, sessiondata: { a: 1 }, slidingtime: '1h' });
    await db(vault).execute('update tenant_1.sessions set expires = ? where sessionuuid = ?', [nowSeconds() + 60, sessionuuid]);
    expect((await vault.call('SessionGet', { sessionuuid })).status).toBe(200);
    const [row] = await db(vault).execute('select expires from tenant_1.sessions where sessionuuid = ?', [sessionuuid]);
    expect(Number(row!.expires)).toBeGreaterThan(nowSeconds() + 3000);
  });

  it('keep their data sealed in the database', async ({ vault }) => {
    const sessionuuid = randomUUID();
    await vault.call('SessionUpsert', { sessionuuid, sessiondata: { secret: 'VISIBLE-SESSION-SECRET' } });
    const [row] = await db(vault).execute('select data from tenant_1.sessions where sessionuuid = ?', [sessionuuid]);
    expect(Buffer.from(row!.data).toString('latin1')).not.toContain('VISIBLE-SESSION-SECRET');
  });
});

describe('shared records', () => {
  it('show a partner only the chosen fields of the profile, dotted paths and the token included, without a token', async ({ vault }) => {
    const u = await user(vault, { address: { city: 'Tallinn', street: 'Secret 1' } });
    // A field the person has not got is refused, naming it: a share of nothing is a mistake, not a link.
    const missing = await vault.call('SharedRecordCreate', { mode: 'token', identity: u.token, fields: 'name, address.city,token,missing.path', partner: 'acme' });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('Invalid API request parameter: fields: "missing.path" is not in the profile');
    const created = await vault.call('SharedRecordCreate', { mode: 'token', identity: u.token, fields: 'name, address.city,token', partner: 'acme' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { recorduuid } = created.body;
    const got = await fetch(`${vault.url}/v2/SharedRecordGet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recorduuid }) });
    expect(got.status).toBe(200);
    const body = await got.json();
    expect(body).toEqual({ status: 'ok', data: { name: u.profile.name, address: { city: 'Tallinn' }, token: u.token }, expirationtime: created.body.expirationtime });
    // Every retrieval is audited on the person's trail.
    const events = await vault.call('AuditListUserEvents', { mode: 'token', identity: u.token });
    expect(events.body.rows.map((r: { title: string }) => r.title)).toEqual(expect.arrayContaining(['SharedRecordCreate', 'SharedRecordGet']));
  });

  it('show the whole profile without fields, or an app record, read as it is at retrieval', async ({ vault }) => {
    const u = await user(vault);
    const whole = await vault.call('SharedRecordCreate', { mode: 'token', identity: u.token });
    expect((await vault.call('SharedRecordGet', { recorduuid: whole.body.recorduuid })).body.data).toEqual(u.profile);
    await vault.call('AppdataCreate', { mode: 'token', identity: u.token, appname: 'shop', appdata: { plan: 'gold', card: '4111' } });
    const app = await vault.call('SharedRecordCreate', { mode: 'token', identity: u.token, appname: 'shop', fields: ['plan'] });
    await vault.call('AppdataUpdate', { mode: 'token', identity: u.token, appname: 'shop', appdata: { plan: 'platinum' } });
    expect((await vault.call('SharedRecordGet', { recorduuid: app.body.recorduuid })).body.data).toEqual({ plan: 'platinum' });
    const noApp = await vault.call('SharedRecordCreate', { mode: 'token', identity: u.token, appname: 'nothing' });
    expect(noApp.status).toBe(404);
    expect(noApp.body.message).toBe('The app record was not found');
  });

  it('expire (never past the maximum), go with their person, and answer 404 after', async ({ vault }) => {
    const u = await user(vault);
    const created = await vault.call('SharedRecordCreate', { mode: 'token', identity: u.token, fields: 'name', finaltime: '1h' });
    expect(created.body.expirationtime).toBeLessThanOrEqual(nowSeconds() + 3600);
    const capped = await vault.call('SharedRecordCreate', { mode: 'token', identity: u.token, fields: 'name', finaltime: '10y' });
    expect(capped.body.expirationtime).toBeLessThanOrEqual(nowSeconds() + 31 * 86_400);
    await db(vault).execute('update tenant_1.shared_records set expires = ? where recorduuid = ?', [nowSeconds() - 1, created.body.recorduuid]);
    const expired = await vault.call('SharedRecordGet', { recorduuid: created.body.recorduuid });
    expect(expired.status).toBe(404);
    expect(expired.body.message).toBe('The shared record was not found');
    await vault.api.services.sweeper.sweepOnce();
    const [row] = await db(vault).execute('select count(*)::int as n from tenant_1.shared_records where recorduuid = ?', [created.body.recorduuid]);
    expect(row!.n).toBe(0);
    await vault.call('UserDelete', { mode: 'token', identity: u.token });
    expect((await vault.call('SharedRecordGet', { recorduuid: capped.body.recorduuid })).status).toBe(404);
  });

  it('are listed for their person and revoked by them alone, the link dead at once', async ({ vault }) => {
    const u = await user(vault);
    const other = await user(vault);
    const ref = { mode: 'token', identity: u.token };
    const a = (await vault.call('SharedRecordCreate', { ...ref, fields: 'name', partner: 'acme' })).body.recorduuid as string;
    const b = (await vault.call('SharedRecordCreate', { ...ref, fields: 'email' })).body.recorduuid as string;
    const listed = await vault.call('SharedRecordListUserRecords', ref);
    expect(listed.body.total).toBe(2);
    expect(listed.body.rows).toEqual(
      expect.arrayContaining([expect.objectContaining({ recorduuid: a, fields: ['name'], partner: 'acme' }), expect.objectContaining({ recorduuid: b, fields: ['email'] })]),
    );
    // The person's own login xtoken revokes their link; another person's xtoken cannot name it.
    const own = (await vault.call('XTokenCreateForUser', ref)).body.xtoken as string;
    const theirs = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: other.token })).body.xtoken as string;
    expect((await vault.call('SharedRecordDelete', { mode: 'token', identity: other.token, recorduuid: a }, { 'x-bunker-token': theirs })).status).toBe(404);
    expect((await vault.call('SharedRecordDelete', { ...ref, recorduuid: a }, { 'x-bunker-token': theirs })).status).toBe(403);
    expect((await vault.call('SharedRecordGet', { recorduuid: a })).status).toBe(200);
    expect((await vault.call('SharedRecordDelete', { ...ref, recorduuid: a }, { 'x-bunker-token': own })).status).toBe(200);
    expect((await vault.call('SharedRecordGet', { recorduuid: a })).status).toBe(404);
    expect((await vault.call('SharedRecordDelete', { ...ref, recorduuid: a })).status).toBe(404);
    expect((await vault.call('SharedRecordListUserRecords', ref, { 'x-bunker-token': own })).body.rows.map((r: { recorduuid: string }) => r.recorduuid)).toEqual([b]);
  });

  it('answer 400 naming the field and 404 for an unknown person or record', async ({ vault }) => {
    const u = await user(vault);
    expect((await vault.call('SharedRecordCreate', { mode: 'token', identity: u.token, fields: 'a,b c' })).body.message).toMatch(/fields/);
    expect((await vault.call('SharedRecordCreate', { mode: 'token', identity: u.token, finaltime: 'x' })).body.message).toMatch(/finaltime/);
    expect((await vault.call('SharedRecordCreate', { fields: 'name' })).body.message).toBe('Missing API request parameters: mode, identity');
    expect((await vault.call('SharedRecordCreate', { mode: 'email', identity: 'nobody@example.invalid' })).status).toBe(404);
    expect((await vault.call('SharedRecordGet', { recorduuid: 'nope' })).body.message).toBe('Bad UUID');
    expect((await vault.call('SharedRecordGet', { recorduuid: randomUUID() })).status).toBe(404);
  });
});
