// System statistics, the licence key call and the tenant's whole audit trail, over HTTP.
import { describe, expect } from 'vitest';
import { it, buildProfile } from '../fixtures/vault.js';

describe('SystemGetSystemStats', () => {
  it('counts users and tokens: every tenant for the main tenant, its own for a tenant admin', async ({ vault }) => {
    const t = await vault.call('TenantCreate', { tenantname: 'statsa', tenantorg: 'A' });
    const admin = { 'x-bunker-token': t.body.xtoken };
    await vault.call('UserCreate', { profile: buildProfile() });
    await vault.call('UserCreate', { profile: buildProfile() }, admin);
    await vault.call('TokenCreate', { tokentype: 'creditcard', record: '4111111111111111' }, admin);
    const all = await vault.call('SystemGetSystemStats');
    expect(all.status).toBe(200);
    expect(all.body.stats).toMatchObject({ numusers: 2, numtenants: 2, numtokens: 1, numsessions: 0, totalnumrecords: 3, licensemaxrecords: 0 });
    const own = await vault.call('SystemGetSystemStats', undefined, admin);
    expect(own.body.stats).toMatchObject({ numusers: 1, numtenants: 1, numtokens: 1 });
  });
});

describe('SystemSetLicenseKey', () => {
  it('is accepted from the main tenant and refused to tenant admins; the key is not in the audit trail', async ({ vault }) => {
    const res = await vault.call('SystemSetLicenseKey', { licensekey: 'LICENSE-abc-123' });
    expect(res.body).toEqual({ status: 'ok', result: 'done' });
    expect((await vault.call('SystemSetLicenseKey', {})).status).toBe(400);
    const t = await vault.call('TenantCreate', { tenantname: 'licb', tenantorg: 'B' });
    expect((await vault.call('SystemSetLicenseKey', { licensekey: 'x' }, { 'x-bunker-token': t.body.xtoken })).status).toBe(403);
    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    const trail = await vault.call('BulkListAllAuditEvents', { unlockuuid, limit: 100 });
    expect(JSON.stringify(trail.body)).not.toContain('LICENSE-abc-123');
  });
});

describe('BulkListAllAuditEvents', () => {
  it('pages through the tenant’s trail newest first, behind the unlock UUID', async ({ vault }) => {
    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    const first = await vault.call('BulkListAllAuditEvents', { unlockuuid, offset: 0, limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body.rows).toHaveLength(2);
    expect(first.body.total).toBeGreaterThan(2);
    expect(first.body.rows[0]).toMatchObject({ eventtype: 'BulkListUnlock', more: expect.any(Boolean), auditeventuuid: expect.any(String) });
    expect(first.body.rows[0].when).toBeGreaterThanOrEqual(first.body.rows[1].when);
    expect((await vault.call('BulkListAllAuditEvents', {})).status).toBe(400);
    expect((await vault.call('BulkListAllAuditEvents', { unlockuuid: '00000000-0000-4000-8000-000000000000' })).status).toBe(403);
  });
});

describe('search and the cross-tenant System operations', () => {
  it('UserSearch finds by email for an address and by login, phone or custom otherwise, behind the unlock UUID', async ({ vault }) => {
    const profile: Record<string, any> = { ...buildProfile(), custom: `cust-${Math.random().toString(36).slice(2, 8)}` };
    const made = await vault.call('UserCreate', { profile });
    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    for (const identity of [profile.email, profile.login, profile.phone, profile.custom]) {
      const res = await vault.call('UserSearch', { unlockuuid, identity, mode: 'ignored' });
      expect(res.status, identity).toBe(200);
      expect(res.body.rows.map((r: { token: string }) => r.token), identity).toEqual([made.body.token]);
    }
    expect((await vault.call('UserSearch', { unlockuuid, identity: 'nobody-at-all' })).body).toEqual({ status: 'ok', total: 0, rows: [] });
    expect((await vault.call('UserSearch', { identity: profile.email })).status).toBe(400);
  });

  it('finds, deletes and restores one person across tenants', async ({ vault }) => {
    const other = await vault.call('TenantCreate', { tenantname: 'crossb', tenantorg: 'B' });
    const admin = { 'x-bunker-token': other.body.xtoken };
    const profile = buildProfile();
    const here = await vault.call('UserCreate', { profile });
    const there = await vault.call('UserCreate', { profile: { ...profile, note: 'in b' } }, admin);
    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;

    const got = await vault.call('SystemGetUserProfiles', { unlockuuid, mode: 'email', identity: profile.email });
    expect(got.status).toBe(200);
    expect(got.body.total).toBe(2);
    expect(got.body.rows).toEqual([
      { token: here.body.token, profile, tenantid: 1, tenantname: 'main' },
      { token: there.body.token, profile: { ...profile, note: 'in b' }, tenantid: other.body.tenantid, tenantname: 'crossb' },
    ]);
    expect((await vault.call('SystemSearchUserProfiles', { unlockuuid, identity: profile.phone })).body.total).toBe(2);
    expect((await vault.call('SystemGetUserProfiles', { unlockuuid, mode: 'email', identity: 'nobody@example.com' })).status).toBe(404);
    expect((await vault.call('SystemGetUserProfiles', { unlockuuid, mode: 'email', identity: profile.email }, admin)).status).toBe(403);

    // Token mode needs a tenant; then only that tenant's record goes.
    expect((await vault.call('SystemDeleteUserProfiles', { unlockuuid, mode: 'token', identity: there.body.token })).status).toBe(400);
    const del = await vault.call('SystemDeleteUserProfiles', { unlockuuid, mode: 'token', identity: there.body.token, tenantname: 'crossb' });
    expect(del.body).toEqual({ status: 'ok', total: 1, rows: [{ token: there.body.token, tenantid: other.body.tenantid, tenantname: 'crossb' }] });
    expect((await vault.call('UserGet', { mode: 'token', identity: there.body.token }, admin)).status).toBe(404);
    expect((await vault.call('UserGet', { mode: 'token', identity: here.body.token })).status).toBe(200);

    const back = await vault.call('SystemRestoreUserProfile', { unlockuuid, token: there.body.token, tenantid: other.body.tenantid });
    expect(back.body).toEqual({ status: 'ok', result: 'restored', token: there.body.token, profile: { ...profile, note: 'in b' } });
    const restored = await vault.call('UserGet', { mode: 'email', identity: profile.email }, admin);
    expect(restored.body.token).toBe(there.body.token);
    expect((await vault.call('SystemRestoreUserProfile', { unlockuuid, token: there.body.token, tenantid: other.body.tenantid })).status).toBe(409);
    expect((await vault.call('SystemRestoreUserProfile', { unlockuuid, token: '00000000-0000-4000-8000-000000000000', tenantname: 'crossb' })).status).toBe(404);

    // By email, every tenant's record goes at once.
    const all = await vault.call('SystemDeleteUserProfiles', { unlockuuid, mode: 'email', identity: profile.email });
    expect(all.body.total).toBe(2);
    expect((await vault.call('SystemGetUserProfiles', { unlockuuid, mode: 'email', identity: profile.email })).status).toBe(404);
  });
});

describe('SystemGenerateWrappingKey', () => {
  it('issues a new wrapping key for three recovery shares, once, to the root token only', async ({ vault }) => {
    const shares = vault.recoveryShares;
    for (const s of shares) expect(vault.tokenizerOutput()).not.toContain(s);
    expect(shares).toHaveLength(5);
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const t = await vault.call('TenantCreate', { tenantname: 'wrapc', tenantorg: 'C' });
    const denied = await vault.call('SystemGenerateWrappingKey', { key1: shares[0], key2: shares[1], key3: shares[2] }, { 'x-bunker-token': t.body.xtoken });
    expect(denied.status).toBe(403);
    const wrong = await vault.call('SystemGenerateWrappingKey', { key1: shares[0], key2: shares[1], key3: 'abcdef' });
    expect(wrong.body).toEqual({ status: 'error', message: 'Master key mismatch' });
    expect((await vault.call('SystemGenerateWrappingKey', { key1: shares[0], key2: 'not hex', key3: shares[2] })).body.message).toMatch(/key2/);
    const res = await vault.call('SystemGenerateWrappingKey', { key1: shares[3], key2: shares[0], key3: shares[4] });
    expect(res.status).toBe(200);
    expect(res.body.wrappingkey).toMatch(/^[0-9a-f]{64}$/);
    // The running keys are the same: everything still opens.
    expect((await vault.call('UserGet', { mode: 'token', identity: user.body.token })).status).toBe(200);
    // Nor the key nor a share lands in the audit trail.
    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    const trail = JSON.stringify((await vault.call('BulkListAllAuditEvents', { unlockuuid, limit: 100 })).body);
    expect(trail).not.toContain(res.body.wrappingkey);
    for (const s of shares) expect(trail).not.toContain(s);
  });
});
