// The key table in a database of its own (STRONGROOM_KEYS_DATABASE_URL): the data database holds no key material,
// erasure destroys the key there, and a data backup from before the erasure, restored with the key database kept
// apart, shows the person as erased (and the sweeper removes them) while everyone else is intact.
// Needs a PostgreSQL server for the key database (KEYS_TEST_DATABASE_URL, else DATABASE_URL); the data database is
// PGlite or PostgreSQL as usual.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { startVault, buildProfile, type TestVault } from '../fixtures/vault.js';
import { randomBytes } from 'node:crypto';

const keysServer = process.env.KEYS_TEST_DATABASE_URL ?? process.env.DATABASE_URL;

/** A throwaway database on the key server. */
async function keysDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `strongroom_keys_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: keysServer });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(keysServer!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: keysServer });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

async function person(vault: TestVault) {
  const profile = buildProfile();
  const token = (await vault.call('UserCreate', { profile })).body.token as string;
  const ref = { mode: 'token', identity: token };
  await vault.call('AppdataCreate', { ...ref, appname: 'shop', appdata: { card: 'secret' } });
  const events = (await vault.call('AuditListUserEvents', ref)).body.rows as { auditeventuuid: string; eventtype: string }[];
  return { token, ref, profile, createEvent: events.find((e) => e.eventtype === 'UserCreate')!.auditeventuuid };
}

describe.skipIf(!keysServer)('a key database of its own (on a PostgreSQL server: KEYS_TEST_DATABASE_URL or DATABASE_URL)', () => {
  it('keeps key material out of the data database, and forgets restored people', async () => {
    const keysDb = await keysDatabase();
    const keysUrl = keysDb.url;
    const vault = await startVault({ env: { STRONGROOM_KEYS_DATABASE_URL: keysUrl } });
    const keys = new pg.Client({ connectionString: keysUrl });
    await keys.connect();
    try {
      const [p, other] = [await person(vault), await person(vault)];
      expect((await vault.call('UserGet', p.ref)).body.profile).toEqual(p.profile);
      const data = vault.api.services.db.global();
      // The data database's ledger has no key; the key database has them all.
      expect(await data.sql.query('select count(*)::int as n from tenant_1.subject_keys where wrapped is not null')).toEqual([{ n: 0 }]);
      const held = await keys.query('select count(*)::int as n from strongroom_keys.subject_keys where tenant_id = 1 and wrapped is not null');
      expect(held.rows[0].n).toBeGreaterThanOrEqual(2);

      // The data backup, taken before the erasure: the person's rows, the ledger row included.
      const tables = ['users', 'user_versions', 'app_records', 'app_versions', 'subject_keys'];
      const backup: Record<string, Record<string, unknown>[]> = {};
      for (const t of tables) {
        const column = ['users', 'user_versions', 'subject_keys'].includes(t) ? 'token' : 'user_token';
        backup[t] = await data.sql.query(`select * from tenant_1.${t} where ${column} = $1`, [p.token]);
      }
      expect((await vault.call('UserDelete', p.ref)).status).toBe(200);
      const gone = await keys.query('select wrapped, erased from strongroom_keys.subject_keys where tenant_id = 1 and token = $1', [p.token]);
      expect(gone.rows[0].wrapped).toBeNull();
      expect(gone.rows[0].erased).not.toBeNull();

      await data.sql.query('delete from tenant_1.subject_keys where token = $1', [p.token]);
      for (const t of tables) {
        for (const row of backup[t]!) {
          const columns = Object.keys(row).filter((c) => !(t === 'users' && c === 'seq'));
          await data.sql.query(`insert into tenant_1.${t} (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
            columns.map((c) => row[c]),
          );
        }
      }
      // Restored, and still erased: absent by every path, its events' details erased.
      for (const [mode, identity] of [['token', p.token], ['email', p.profile.email]]) expect((await vault.call('UserGet', { mode, identity })).status).toBe(404);
      expect((await vault.call('AppdataGet', { ...p.ref, appname: 'shop' })).status).toBe(404);
      expect((await vault.call('AuditGetEvent', { auditeventuuid: p.createEvent })).body.details).toEqual({ erased: true });
      const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid as string;
      expect(JSON.stringify((await vault.call('BulkListAllUsers', { unlockuuid, limit: 100 })).body)).not.toContain(p.token);
      expect((await vault.call('UserGet', other.ref)).body.profile).toEqual(other.profile);
      expect((await vault.call('AuditGetEvent', { auditeventuuid: other.createEvent })).body.details.after).toEqual(other.profile);

      await vault.api.services.sweeper.sweepOnce();
      expect(await data.sql.query('select 1 from tenant_1.users where token = $1', [p.token])).toEqual([]);
      expect(await data.sql.query('select erased is not null as erased from tenant_1.subject_keys where token = $1', [p.token])).toEqual([{ erased: true }]);
      expect((await vault.call('UserGet', other.ref)).status).toBe(200);

      // Rotation works on the keys where they live.
      await vault.call('SystemRotateMasterKey', {});
      await vault.api.services.rewrapper.runOnce();
      expect((await vault.call('SystemGetKeyringStatus', {})).body.rotation).toMatchObject({ percent: 100 });
      expect((await vault.call('UserGet', other.ref)).body.profile).toEqual(other.profile);

      // A deleted tenant's keys leave the key database with it.
      const t = await vault.call('TenantCreate', { tenantname: `keys${Date.now() % 100000}`, tenantorg: 'Org' });
      const tid = t.body.tenantid as number;
      expect((await vault.call('UserCreate', { profile: buildProfile() }, { 'x-bunker-token': t.body.xtoken as string })).status).toBe(200);
      const count = async () => (await keys.query('select count(*)::int as n from strongroom_keys.subject_keys where tenant_id = $1', [tid])).rows[0].n as number;
      // The person's key and the tenant's own.
      expect(await count()).toBe(2);
      expect((await vault.call('TenantDelete', { tenantid: tid })).status).toBe(200);
      expect(await count()).toBe(0);
    } finally {
      await keys.end();
      await vault.stop();
      await keysDb.drop();
    }
  });
});
