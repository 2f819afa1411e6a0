// Master-key rotation online: with reads and writes running, rotate; every person's key is rewrapped under the new
// version in the background with zero failed calls, all data still opens, and a restart mid-way resumes the work.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it as plain } from 'vitest';
import { apiTestEnv, vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { spawnTokenizer } from '../fixtures/tokenizer.js';
import { createTestDatabase } from '../fixtures/database.js';
import { startApi } from '../../api/compose.js';

const REWRAP = { STRONGROOM_REWRAP_SECONDS: '1', STRONGROOM_REWRAP_BATCH: '5', STRONGROOM_REWRAP_PAUSE_MS: '5' };
const it = vaultTest({ env: REWRAP });

async function people(vault: TestVault, n: number) {
  const out: { token: string; profile: Record<string, unknown> }[] = [];
  for (let i = 0; i < n; i++) {
    const profile = buildProfile();
    const token = (await vault.call('UserCreate', { profile })).body.token as string;
    await vault.call('AppdataCreate', { mode: 'token', identity: token, appname: 'shop', appdata: { i } });
    out.push({ token, profile });
  }
  return out;
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('master-key rotation', () => {
  it('rewraps every person key in the background while reads and writes go on without a failure', async ({ vault }) => {
    const ps = await people(vault, 30);
    // Tenant-level records: a token, a session naming nobody, an event about no person.
    const token = (await vault.call('TokenCreate', { tokentype: 'creditcard', record: '4111 1111 1111 1111' })).body.tokenuuid as string;
    const sessionuuid = randomUUID();
    expect((await vault.call('SessionUpsert', { sessionuuid, sessiondata: { cart: 3 } })).status).toBe(200);
    const before = await vault.call('SystemGetKeyringStatus', {});
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body).toMatchObject({ active: 1, versions: [1], rotation: { percent: 100 } });
    expect(before.body.keyringid).toMatch(/^[0-9a-f]{16}$/);

    let running = true;
    const failures: string[] = [];
    let calls = 0;
    const load = (async () => {
      for (let i = 0; running; i++) {
        const p = ps[i % ps.length]!;
        const ref = { mode: 'token', identity: p.token };
        const [got, updated] = await Promise.all([vault.call('UserGet', ref), vault.call('UserUpdate', { ...ref, profile: { n: i } })]);
        calls += 2;
        for (const r of [got, updated]) if (r.status !== 200) failures.push(`${r.status} ${JSON.stringify(r.body)}`);
      }
    })();

    const rotated = await vault.call('SystemRotateMasterKey', {});
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.active).toBe(2);
    // A person made now gets a key under the new version at once.
    ps.push(...(await people(vault, 1)));
    const status = await until(
      () => vault.call('SystemGetKeyringStatus', {}),
      (s) => s.body.rotation.percent === 100,
    );
    expect(status.body).toMatchObject({ active: 2, versions: [1, 2], rotation: { percent: 100 }, versionsinuse: [2] });
    // Every person's key, and the tenant's own.
    expect(status.body.rotation.total).toBe(ps.length + 1);
    expect(status.body.seals['2']).toBeGreaterThan(0);

    // Again: version 2 is then wrapped under by nothing and retired; version 1 stays (lookup hashes and tokens).
    expect((await vault.call('SystemRotateMasterKey', {})).body.active).toBe(3);
    const retired = await until(
      () => vault.call('SystemGetKeyringStatus', {}),
      (s) => s.body.rotation.percent === 100 && s.body.versions.length === 2,
    );
    running = false;
    await load;
    expect(retired.body).toMatchObject({ active: 3, versions: [1, 3], versionsinuse: [3] });
    // Everything sealed before still opens, version 2 gone.
    expect((await vault.call('TokenGet', { token })).body.record).toBe('4111 1111 1111 1111');
    expect((await vault.call('SessionGet', { sessionuuid })).body.sessiondata).toEqual({ cart: 3 });
    expect(vault.tokenizerOutput()).not.toMatch(/error/i);
    expect(calls).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    for (const p of ps) {
      const ref = { mode: 'token', identity: p.token };
      expect((await vault.call('UserGet', { ...ref, version: 1 })).body.profile).toEqual(p.profile);
      expect((await vault.call('AppdataGet', { ...ref, appname: 'shop' })).status).toBe(200);
    }
  });

  it('is refused to tenant admins', async ({ vault }) => {
    const t = await vault.call('TenantCreate', { tenantname: `rot${Date.now() % 100000}`, tenantorg: 'Org' });
    const headers = { 'x-bunker-token': t.body.xtoken as string };
    expect((await vault.call('SystemRotateMasterKey', {}, headers)).status).toBe(403);
    expect((await vault.call('SystemGetKeyringStatus', {}, headers)).status).toBe(403);
  });
});

describe('a rotation interrupted by a restart', () => {
  plain('resumes where it stopped', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
    const db = await createTestDatabase();
    const tokenizer = await spawnTokenizer({ dataDir: mkdtempSync(join(tmpdir(), 'sr-k-')) });
    const rootToken = randomUUID();
    const env: NodeJS.ProcessEnv = apiTestEnv({ dataDir, rootToken, socketPath: tokenizer.socketPath, databaseUrl: db.url }, { STRONGROOM_REWRAP_SECONDS: '0', STRONGROOM_REWRAP_BATCH: '4', STRONGROOM_REWRAP_PAUSE_MS: '0' });
    const call = async (port: number, op: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${port}/v2/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-bunker-token': rootToken },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    try {
      const first = await startApi(env);
      const tokens: string[] = [];
      for (let i = 0; i < 12; i++) tokens.push((await call(first.port, 'UserCreate', { profile: { i } })).body.token as string);
      // Rotated behind the background's back, then one batch only: a third of the way.
      await first.services.tokenizer.rotate();
      expect(await first.services.rewrapper.runOnce(1)).toBe(4);
      // Twelve people and the tenant's own key.
      expect((await first.services.rewrapper.progress())).toMatchObject({ active: 2, done: 4, total: 13 });
      await first.close();

      const second = await startApi(env);
      const status = await until(
        () => call(second.port, 'SystemGetKeyringStatus', {}),
        (s) => s.body.rotation.percent === 100,
      );
      expect(status.body.rotation).toEqual({ done: 13, total: 13, percent: 100 });
      for (const [i, token] of tokens.entries()) expect((await call(second.port, 'UserGet', { mode: 'token', identity: token })).body.profile).toEqual({ i });
      await second.close();
    } finally {
      await tokenizer.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
