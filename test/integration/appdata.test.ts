// Per-user app data over HTTP: create, read (and read a version), merge, list, delete, and the error cases.
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';

async function user(vault: TestVault): Promise<string> {
  return (await vault.call('UserCreate', { profile: buildProfile() })).body.token as string;
}

describe('app data', () => {
  it('is stored per user and app, merged on update, kept as versions and read back exactly', async ({ vault }) => {
    const token = await user(vault);
    const ref = { mode: 'token', identity: token };
    expect((await vault.call('AppdataCreate', { ...ref, appname: 'Shop', appdata: { cart: ['book'], vip: false } })).status).toBe(200);
    const got = await vault.call('AppdataGet', { ...ref, appname: 'shop' });
    expect(got.body).toEqual({ status: 'ok', appname: 'shop', version: 1, appdata: { cart: ['book'], vip: false } });
    expect((await vault.call('AppdataUpdate', { ...ref, appname: 'shop', appdata: { vip: true, cart: null, since: 2024 } })).status).toBe(200);
    expect((await vault.call('AppdataGet', { ...ref, appname: 'shop' })).body).toMatchObject({ version: 2, appdata: { vip: true, since: 2024 } });
    expect((await vault.call('AppdataGet', { ...ref, appname: 'shop', version: 1 })).body.appdata).toEqual({ cart: ['book'], vip: false });
    const versions = await vault.call('AppdataListVersions', { ...ref, appname: 'shop' });
    expect(versions.body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
    expect(versions.body.versions[0].md5).toMatch(/^[0-9a-f]{32}$/);
    expect((await vault.call('AppdataGet', { ...ref, appname: 'shop', version: 9 })).status).toBe(404);

    await vault.call('AppdataCreate', { ...ref, appname: 'games', appdata: { level: 3 } });
    expect((await vault.call('AppdataListUserAppNames', ref)).body.apps).toEqual(['games', 'shop']);
    expect((await vault.call('AppdataListAppNames')).body.apps).toEqual(expect.arrayContaining(['games', 'shop']));
    expect((await vault.call('AppdataDelete', { ...ref, appname: 'games' })).status).toBe(200);
    expect((await vault.call('AppdataListUserAppNames', ref)).body.apps).toEqual(['shop']);
    expect((await vault.call('AppdataDelete', { ...ref, appname: 'games' })).status).toBe(404);
  });

  it('keeps the last ten earlier versions besides the current one', async ({ vault }) => {
    const token = await user(vault);
    const ref = { mode: 'token', identity: token, appname: 'counter' };
    await vault.call('AppdataCreate', { ...ref, appdata: { n: 0 } });
    for (let n = 1; n <= 12; n++) expect((await vault.call('AppdataUpdate', { ...ref, appdata: { n } })).status).toBe(200);
    const versions = (await vault.call('AppdataListVersions', ref)).body.versions.map((v: { version: number }) => v.version);
    expect(versions).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect((await vault.call('AppdataGet', { ...ref, version: 3 })).body.appdata).toEqual({ n: 2 });
    expect((await vault.call('AppdataGet', { ...ref, version: 2 })).status).toBe(404);
    expect((await vault.call('AppdataGet', ref)).body).toMatchObject({ version: 13, appdata: { n: 12 } });
  });

  it('answers 404 for an unknown user or app and 400 for bad input, and goes with the user', async ({ vault }) => {
    const token = await user(vault);
    const ref = { mode: 'token', identity: token };
    const none = await vault.call('AppdataGet', { ...ref, appname: 'nothing' });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe('The app record was not found');
    expect((await vault.call('AppdataUpdate', { ...ref, appname: 'nothing', appdata: { a: 1 } })).status).toBe(404);
    expect((await vault.call('AppdataCreate', { mode: 'token', identity: '00000000-0000-4000-8000-000000000000', appname: 'x', appdata: {} })).status).toBe(404);
    expect((await vault.call('AppdataCreate', { ...ref, appname: 'bad name!', appdata: {} })).body.message).toMatch(/appname/);
    expect((await vault.call('AppdataCreate', { ...ref, appname: 'x', appdata: 'text' })).status).toBe(400);
    expect((await vault.call('AppdataCreate', { ...ref, appname: 'x' })).body.message).toBe('Missing API request parameters: appdata');
    await vault.call('AppdataCreate', { ...ref, appname: 'kept', appdata: { a: 1 } });
    await vault.call('UserDelete', ref);
    expect((await vault.call('AppdataListAppNames')).body.apps).not.toContain('kept');
  });

  it('is readable but not writable through the user’s own login xtoken', async ({ vault }) => {
    const token = await user(vault);
    const ref = { mode: 'token', identity: token };
    await vault.call('AppdataCreate', { ...ref, appname: 'prefs', appdata: { theme: 'dark' } });
    const login = { 'x-bunker-token': (await vault.call('XTokenCreateForUser', ref)).body.xtoken };
    expect((await vault.call('AppdataGet', { ...ref, appname: 'prefs' }, login)).body.appdata).toEqual({ theme: 'dark' });
    expect((await vault.call('AppdataUpdate', { ...ref, appname: 'prefs', appdata: { theme: 'light' } }, login)).status).toBe(403);
    const other = await user(vault);
    expect((await vault.call('AppdataGet', { mode: 'token', identity: other, appname: 'prefs' }, login)).status).toBe(403);
  });
});
