// SystemGetOverview: the console overview's counts by day, open and overdue requests, the chain's checkpoint.
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';

function sql(vault: TestVault) {
  const conn = vault.api.services.db.orm.em.getConnection();
  return (text: string, params: unknown[] = []) => conn.execute(text, params) as Promise<Record<string, any>[]>;
}

const today = () => new Date().toISOString().slice(0, 10);

describe('SystemGetOverview', () => {
  it('counts calls, refusals, consent and requests by day, and requests past their month', async ({ vault }) => {
    const t = await vault.call('TenantCreate', { tenantname: 'overviewa', tenantorg: 'A' });
    const admin = { 'x-bunker-token': t.body.xtoken };
    const before = (await vault.call('SystemGetOverview', { days: 7 }, admin)).body;
    expect(before.days).toHaveLength(7);
    expect(before.days[6].date).toBe(today());
    const { token } = (await vault.call('UserCreate', { profile: buildProfile() }, admin)).body;
    const ref = { mode: 'token', identity: token };
    await vault.call('LegalBasisCreate', { brief: 'newsletter' }, admin);
    expect((await vault.call('AgreementAccept', { ...ref, brief: 'newsletter' }, admin)).status).toBe(200);
    expect((await vault.call('AgreementCancel', { ...ref, brief: 'newsletter' }, admin)).status).toBe(200);
    const old = (await vault.call('UserUpdateRequest', { ...ref, profile: { city: 'x' } }, admin)).body.requestuuid as string;
    expect((await vault.call('AppdataUpdateRequest', { ...ref, appname: 'shop', appdata: { v: 2 } }, admin)).status).toBe(200);
    expect((await vault.call('UserGet', { mode: 'token', identity: '00000000-0000-4000-8000-000000000000' }, admin)).status).toBe(404);
    // A request made 32 days ago is past its one-month deadline; one made 27 days ago is not.
    const q = sql(vault);
    await q(`update tenant_${t.body.tenantid}.user_requests set creationtime = creationtime - 32 * 86400 where requestuuid = ?`, [old]);
    await q(`update tenant_${t.body.tenantid}.user_requests set creationtime = creationtime - 27 * 86400 where requestuuid <> ?`, [old]);

    const res = await vault.call('SystemGetOverview', { days: 7 }, admin);
    expect(res.status).toBe(200);
    const day = res.body.days[6];
    const was = before.days[6];
    expect(day.consentgiven - was.consentgiven).toBe(1);
    expect(day.consentwithdrawn - was.consentwithdrawn).toBe(1);
    expect(day.requests - was.requests).toBe(2);
    expect(day.refusals - was.refusals).toBeGreaterThanOrEqual(1);
    expect(day.calls - was.calls).toBeGreaterThanOrEqual(7);
    expect(res.body.requests).toEqual({ pending: 2, overdue: 1, capped: false });
    expect(res.body.complete).toBe(true);
    expect(res.body.checkpoint.headseq).toBeGreaterThanOrEqual(res.body.checkpoint.checkpointedseq);
    // Another tenant's activity is not counted in this one's overview.
    const main = await vault.call('SystemGetOverview', {});
    expect(main.body.days).toHaveLength(30);
    expect(main.body.requests.pending).toBe(0);
  });

  it('refuses a window past 90 days, naming the field', async ({ vault }) => {
    const res = await vault.call('SystemGetOverview', { days: 365 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('days');
  });
});
