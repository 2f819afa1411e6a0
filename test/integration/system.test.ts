// System statistics, the licence key call and the tenant's whole audit trail, over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVault, buildProfile, type TestVault } from '../fixtures/vault.js';

let vault: TestVault;
beforeAll(async () => {
  vault = await startVault();
});
afterAll(async () => {
  await vault?.stop();
});

describe('SystemGetSystemStats', () => {
  it('counts users and tokens: every tenant for the main tenant, its own for a tenant admin', async () => {
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
  it('is accepted from the main tenant and refused to tenant admins; the key is not in the audit trail', async () => {
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
  it('pages through the tenant’s trail newest first, behind the unlock UUID', async () => {
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
