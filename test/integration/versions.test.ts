// Profile versions kept by UserUpdate and UserPatch (the old profile becomes a version in the update's own
// statement): with STRONGROOM_MAX_VERSIONS=3, whatever the number of updates, exactly the newest three old profiles
// and the current one remain, each opening to what it was, checked against a model of the updates.
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile } from '../fixtures/vault.js';

const KEEP = 3;
const it = vaultTest({ env: { STRONGROOM_MAX_VERSIONS: String(KEEP) } });

describe('kept versions', () => {
  it('keeps exactly the newest versions, each opening to the profile it was', async ({ vault }) => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ patch: fc.boolean(), visits: fc.nat(1000) }), { minLength: 0, maxLength: 7 }), async (updates) => {
        const first = buildProfile();
        const created = await vault.call('UserCreate', { profile: first });
        expect(created.status).toBe(200);
        const token = created.body.token as string;
        // The model: the profile at each version, 1 being the one created.
        const model: Record<string, unknown>[] = [first];
        for (const u of updates) {
          const res = u.patch
            ? await vault.call('UserPatch', { mode: 'token', identity: token, patch: [{ op: 'add', path: '/visits', value: u.visits }] })
            : await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits: u.visits } });
          expect(res.status).toBe(200);
          model.push({ ...model.at(-1)!, visits: u.visits });
        }
        const current = model.length;
        const listed = await vault.call('UserListVersions', { mode: 'token', identity: token });
        const expected = Array.from({ length: current }, (_, i) => i + 1).filter((v) => v === current || v > current - 1 - KEEP);
        expect(listed.body.versions.map((v: { version: number }) => v.version)).toEqual(expected);
        for (const v of expected) {
          const got = await vault.call('UserGet', { mode: 'token', identity: token, version: v });
          expect(got.status, `version ${v}`).toBe(200);
          expect(got.body.profile).toEqual(model[v - 1]);
        }
        // A version dropped, or never made, is not found.
        for (const v of [current - 1 - KEEP, current + 1].filter((n) => n >= 1)) {
          expect((await vault.call('UserGet', { mode: 'token', identity: token, version: v })).status, `version ${v}`).toBe(404);
        }
      }),
      { numRuns: 8 },
    );
  });

  it('copies the old row inside the database and refuses a row not at the version read, writing nothing', async ({ vault }) => {
    const created = await vault.call('UserCreate', { profile: buildProfile() });
    const token = created.body.token as string;
    for (const visits of [1, 2, 3, 4]) expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits } })).status).toBe(200);
    const db = vault.api.services.db;
    const state = async () => ({
      row: (await db.global().sql.query(`select version, profile from tenant_1.users where token = $1`, [token]))[0],
      kept: await db.global().sql.query(`select version, profile, optime from tenant_1.user_versions where token = $1 order by version`, [token]),
    });
    const before = await state();
    expect(before.row!.version).toBe(5);
    // The kept versions hold exactly the bytes each row had (the newest kept is the row before the last update).
    expect(before.kept.map((k) => k.version)).toEqual([2, 3, 4]);
    const users = db.stores(1).users;
    const set = { profile: Buffer.from('not a profile'), version: 9, updated: 1 };
    for (const stale of [4, 6, 1]) {
      await expect(users.updateKeepingVersion(token, { version: stale, keep: KEEP }, set)).rejects.toThrow(/not at version/);
      expect(await state(), `a replace at version ${stale}`).toEqual(before);
    }
    const apps = db.stores(1).appdata;
    expect((await vault.call('AppdataCreate', { mode: 'token', identity: token, appname: 'shop', appdata: { n: 0 } })).status).toBe(200);
    expect((await vault.call('AppdataUpdate', { mode: 'token', identity: token, appname: 'shop', appdata: { n: 1 } })).status).toBe(200);
    const appState = async () => ({
      row: (await db.global().sql.query(`select version, data from tenant_1.app_records where user_token = $1`, [token]))[0],
      kept: await db.global().sql.query(`select version, data from tenant_1.app_versions where user_token = $1 order by version`, [token]),
    });
    const appBefore = await appState();
    expect(appBefore.row!.version).toBe(2);
    for (const keep of [0, KEEP]) {
      await expect(apps.replace(token, 'shop', { version: 1 }, Buffer.from('x'), { now: 1, keep })).rejects.toThrow(/not at version/);
      expect(await appState()).toEqual(appBefore);
    }
    // The version the update kept opens to what the record was.
    expect((await vault.call('AppdataGet', { mode: 'token', identity: token, appname: 'shop', version: 1 })).body.appdata).toEqual({ n: 0 });
  });
});
