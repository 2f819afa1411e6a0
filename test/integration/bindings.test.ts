// AAD bindings as a database writer meets them: a ciphertext copied to another row, person, version, legal basis or
// request type does not open (the api answers 409, the record altered, instead of someone else's or an older value), while renaming a
// legal basis, which changes no id, leaves its agreements readable.
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';
import { Messages } from '../../api/errors.js';

async function person(vault: TestVault) {
  const profile = buildProfile();
  const token = (await vault.call('UserCreate', { profile })).body.token as string;
  return { token, profile, ref: { mode: 'token', identity: token } };
}

function sql(vault: TestVault) {
  const conn = vault.api.services.db.orm.em.getConnection();
  return (text: string, params: unknown[] = []) => conn.execute(text, params) as Promise<Record<string, any>[]>;
}

/** The answer to a read of a record that does not open: 409 naming it, never a 500 nor the value. */
function expectAltered(res: { status: number; body: Record<string, unknown> }) {
  expect(res.status, JSON.stringify(res.body)).toBe(409);
  expect(res.body.message).toBe(Messages.recordAltered);
}

describe('bindings', () => {
  it('a profile copied to another person does not open', async ({ vault }) => {
    const [a, b] = [await person(vault), await person(vault)];
    const q = sql(vault);
    await q(`update tenant_1.users set profile = (select profile from tenant_1.users where token = ?) where token = ?`, [a.token, b.token]);
    expectAltered(await vault.call('UserGet', b.ref));
    expect((await vault.call('UserGet', a.ref)).body.profile).toEqual(a.profile);
  });

  it('an older version copied over the current profile does not open (no silent rollback)', async ({ vault }) => {
    const a = await person(vault);
    await vault.call('UserUpdate', { ...a.ref, profile: { city: 'Tartu' } });
    const q = sql(vault);
    expect((await vault.call('UserGet', { ...a.ref, version: 1 })).body.profile).toEqual(a.profile);
    await q(`update tenant_1.users set profile = (select profile from tenant_1.user_versions where token = ? and version = 1) where token = ?`, [a.token, a.token]);
    expectAltered(await vault.call('UserGet', a.ref));
  });

  it('an app record copied to another app, version or person does not open', async ({ vault }) => {
    const [a, b] = [await person(vault), await person(vault)];
    await vault.call('AppdataCreate', { ...a.ref, appname: 'shop', appdata: { v: 1 } });
    await vault.call('AppdataUpdate', { ...a.ref, appname: 'shop', appdata: { v: 2 } });
    await vault.call('AppdataCreate', { ...a.ref, appname: 'bank', appdata: { v: 'bank' } });
    await vault.call('AppdataCreate', { ...b.ref, appname: 'shop', appdata: { v: 'b' } });
    const q = sql(vault);
    const [old] = await q(`select data from tenant_1.app_versions where user_token = ? and appname = 'shop' and version = 1`, [a.token]);
    const [current] = await q(`select data from tenant_1.app_records where user_token = ? and appname = 'shop'`, [a.token]);
    // Rolled back to version 1's ciphertext: refused.
    await q(`update tenant_1.app_records set data = ? where user_token = ? and appname = 'shop'`, [old!.data, a.token]);
    expectAltered(await vault.call('AppdataGet', { ...a.ref, appname: 'shop' }));
    // Moved to another app of the same person, and to the same app of another person: refused.
    await q(`update tenant_1.app_records set data = ? where user_token = ? and appname = 'bank'`, [current!.data, a.token]);
    expectAltered(await vault.call('AppdataGet', { ...a.ref, appname: 'bank' }));
    await q(`update tenant_1.app_records set data = ? where user_token = ? and appname = 'shop'`, [current!.data, b.token]);
    expectAltered(await vault.call('AppdataGet', { ...b.ref, appname: 'shop' }));
  });

  it('agreement details follow the basis id: a rename keeps them, a copy to another basis does not open', async ({ vault }) => {
    const a = await person(vault);
    const stamp = Date.now() % 1_000_000;
    const [one, two] = [`basis-one-${stamp}`, `basis-two-${stamp}`];
    for (const brief of [one, two]) {
      expect((await vault.call('LegalBasisCreate', { brief })).status).toBe(200);
      expect((await vault.call('AgreementAccept', { ...a.ref, brief, referencecode: `ref-${brief}` })).status).toBe(200);
    }
    const renamed = `${one}-renamed`;
    expect((await vault.call('LegalBasisUpdate', { brief: one, newbrief: renamed })).status).toBe(200);
    const got = await vault.call('AgreementGet', { ...a.ref, brief: renamed });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.agreement.referencecode).toBe(`ref-${one}`);
    const q = sql(vault);
    await q(`update tenant_1.agreements set details = (select details from tenant_1.agreements where user_token = ? and brief = ?) where user_token = ? and brief = ?`, [
      a.token,
      renamed,
      a.token,
      two,
    ]);
    expectAltered(await vault.call('AgreementGet', { ...a.ref, brief: two }));
  });

  it('a request payload copied to a request of another type or person does not open', async ({ vault }) => {
    const [a, b] = [await person(vault), await person(vault)];
    await vault.call('AppdataCreate', { ...a.ref, appname: 'shop', appdata: { v: 1 } });
    const profileReq = (await vault.call('UserUpdateRequest', { ...a.ref, profile: { city: 'x' } })).body.requestuuid as string;
    const appReq = (await vault.call('AppdataUpdateRequest', { ...a.ref, appname: 'shop', appdata: { v: 2 } })).body.requestuuid as string;
    const otherReq = (await vault.call('UserUpdateRequest', { ...b.ref, profile: { city: 'y' } })).body.requestuuid as string;
    const q = sql(vault);
    const [payload] = await q(`select change from tenant_1.user_requests where requestuuid = ?`, [profileReq]);
    await q(`update tenant_1.user_requests set change = ? where requestuuid = ?`, [payload!.change, appReq]);
    expectAltered(await vault.call('UserRequestGet', { requestuuid: appReq }));
    await q(`update tenant_1.user_requests set change = ? where requestuuid = ?`, [payload!.change, otherReq]);
    expectAltered(await vault.call('UserRequestGet', { requestuuid: otherReq }));
    expect((await vault.call('UserRequestGet', { requestuuid: profileReq })).body.request.change).toEqual({ profile: { city: 'x' } });
  });
});
