// Bulk listing behind the unlock UUID, and the audit trail every call leaves, over HTTP.
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';

async function unlock(vault: TestVault): Promise<string> {
  const res = await vault.call('BulkListUnlock');
  expect(res.status).toBe(200);
  return res.body.unlockuuid as string;
}

describe('BulkListUnlock', () => {
  it('accepts an absent body and returns a reusable UUID', async ({ vault }) => {
    const res = await fetch(`${vault.url}/v2/BulkListUnlock`, { method: 'POST', headers: { 'x-bunker-token': vault.rootToken } });
    const body = (await res.json()) as Record<string, any>;
    expect(body.status).toBe('ok');
    expect(body.unlockuuid).toMatch(/^[0-9a-f-]{36}$/);
    const page1 = await vault.call('BulkListAllUsers', { unlockuuid: body.unlockuuid });
    const page2 = await vault.call('BulkListAllUsers', { unlockuuid: body.unlockuuid });
    expect(page1.status).toBe(200);
    expect(page2.status).toBe(200);
  });

  it('refuses a missing, unknown or expired unlock UUID', async ({ vault }) => {
    for (const unlockuuid of [undefined, 'nope', '00000000-0000-0000-0000-000000000000']) {
      const res = await vault.call('BulkListAllUsers', { unlockuuid });
      expect(res.status, String(unlockuuid)).toBe(unlockuuid === undefined ? 400 : 403);
    }
    const res = await vault.call('BulkListAllUsers', { unlockuuid: '00000000-0000-0000-0000-000000000000' });
    expect(res.body.message).toBe('The unlockuuid value was not found or is not valid');
  });
});

describe('BulkListAllUsers', () => {
  it('pages through every user in a stable order with a total', async ({ vault }) => {
    const u = await unlock(vault);
    const before = (await vault.call('BulkListAllUsers', { unlockuuid: u, limit: 1 })).body.total as number;
    const made = [];
    for (let i = 0; i < 12; i++) made.push((await vault.call('UserCreate', { profile: buildProfile({ n: i }) })).body.token);
    const first = await vault.call('BulkListAllUsers', { unlockuuid: u });
    expect(first.body.total).toBe(before + 12);
    expect(first.body.rows).toHaveLength(10);
    const all: string[] = [];
    for (let offset = 0; offset < first.body.total; offset += 5) {
      const page = await vault.call('BulkListAllUsers', { unlockuuid: u, offset, limit: '5' });
      all.push(...page.body.rows.map((r: { token: string }) => r.token));
    }
    expect(new Set(all).size).toBe(before + 12);
    expect(all.slice(-12)).toEqual(made);
    const capped = await vault.call('BulkListAllUsers', { unlockuuid: u, limit: 1000 });
    expect(capped.body.rows.length).toBe(Math.min(100, before + 12));
    expect(capped.body.rows[0]).toHaveProperty('profile');
  });
});

describe('BulkListUsers', () => {
  it('returns the matching users in request order and skips the missing', async ({ vault }) => {
    const a = buildProfile();
    const b = buildProfile();
    const ta = (await vault.call('UserCreate', { profile: a })).body.token;
    const tb = (await vault.call('UserCreate', { profile: b })).body.token;
    const res = await vault.call('BulkListUsers', {
      unlockuuid: await unlock(vault),
      users: [
        { mode: 'login', identity: b.login },
        { mode: 'email', identity: 'missing@example.com' },
        { mode: 'email', identity: a.email },
        { mode: 'login', identity: a.login },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.rows.map((r: { token: string }) => r.token)).toEqual([tb, ta]);
    expect(res.body.rows[1].profile).toEqual(a);
  });

  it('refuses an empty list and the token mode', async ({ vault }) => {
    const u = await unlock(vault);
    expect((await vault.call('BulkListUsers', { unlockuuid: u, users: [] })).status).toBe(400);
    const tokenMode = await vault.call('BulkListUsers', { unlockuuid: u, users: [{ mode: 'token', identity: 'x' }] });
    expect(tokenMode.status).toBe(400);
    expect(tokenMode.body.message).toBe('The mode parameter has an incorrect format: use login, token, email, phone or custom');
  });
});

describe('audit trail', () => {
  it('records every call on the user, failures included, with request_metadata and sealed details', async ({ vault }) => {
    const profile = buildProfile();
    const { token } = (await vault.call('UserCreate', { profile, request_metadata: { ticket: 'T-1' } })).body;
    await vault.call('UserGet', { mode: 'email', identity: profile.email });
    await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { email: profile.email.replace('user', 'other') }, request_metadata: { reason: 'typo' } });
    await vault.call('UserUpdate', { mode: 'token', identity: token, profile: 'bad' });
    const list = await vault.call('AuditListUserEvents', { mode: 'token', identity: token });
    expect(list.status).toBe(200);
    const titles = list.body.rows.map((r: { eventtype: string }) => r.eventtype);
    expect(titles).toEqual(['UserUpdate', 'UserGet', 'UserCreate']);
    expect(list.body.total).toBe(3);
    const row = list.body.rows[0];
    expect(row).toMatchObject({ title: 'UserUpdate', status: 'ok', record: token, more: true });
    expect(new Date(row.timestamp).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const event = await vault.call('AuditGetEvent', { auditeventuuid: row.auditeventuuid });
    expect(event.status).toBe(200);
    expect(event.body.eventtype).toBe('UserUpdate');
    expect(event.body.eventstatus).toBe('ok');
    expect(event.body.details.before.email).toBe(profile.email);
    expect(event.body.details.request_metadata).toEqual({ reason: 'typo' });
    const created = await vault.call('AuditGetEvent', { auditeventuuid: list.body.rows[2].auditeventuuid });
    expect(created.body.details.request_metadata).toEqual({ ticket: 'T-1' });
  });

  it('answers a failed call\'s event with status ok: the event\'s outcome is eventstatus', async ({ vault }) => {
    const { unlockuuid } = (await vault.call('BulkListUnlock')).body;
    const missing = await vault.call('UserGet', { mode: 'login', identity: `nobody-${Date.now()}` });
    expect(missing.status).toBe(404);
    const all = await vault.call('BulkListAllAuditEvents', { unlockuuid, limit: 5 });
    const last = (all.body.rows as { auditeventuuid: string; title: string; status: string }[]).find((r) => r.title === 'UserGet');
    expect(last!.status).toBe('error');
    const event = await vault.call('AuditGetEvent', { auditeventuuid: last!.auditeventuuid });
    expect(event.status).toBe(200);
    expect(event.body.status).toBe('ok');
    expect(event.body.eventstatus).toBe('error');
  });

  it('answers 404 for an unknown event and 400 for a malformed id', async ({ vault }) => {
    expect((await vault.call('AuditGetEvent', { auditeventuuid: '00000000-0000-0000-0000-000000000000' })).status).toBe(404);
    const bad = await vault.call('AuditGetEvent', { auditeventuuid: 'zzz' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Bad UUID');
  });

  it('keeps an intact keyed chain that detects tampering', async ({ vault }) => {
    await vault.call('UserCreate', { profile: buildProfile() });
    const verifier = vault.api.services.auditVerifier;
    expect((await verifier.verify(1)).result).toBe('intact');
    const conn = vault.api.services.db.orm.em.getConnection();
    await conn.execute(`update tenant_1.audit_events set title = 'Forged' where seq = 2`);
    expect((await verifier.verify(1)).broken).toEqual({ seq: 2, why: 'link' });
    await conn.execute(`update tenant_1.audit_events set title = 'UserCreate' where seq = 2`);
  });
});
