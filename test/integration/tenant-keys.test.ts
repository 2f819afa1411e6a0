// Tenant keys are never reused: ids never move backwards across restarts, and each tenant's keys derive from a
// random salt kept with it and deleted with it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { spawnTokenizer } from '../fixtures/tokenizer.js';
import { createTestDatabase } from '../fixtures/database.js';
import { startApi } from '../../api/compose.js';
import { apiTestEnv } from '../fixtures/vault.js';

describe('tenant keys', () => {
  it('never reuse a deleted tenant id after a restart, and derive from a salt that goes with the tenant', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
    const db = await createTestDatabase();
    const tokenizer = await spawnTokenizer({ dataDir: mkdtempSync(join(tmpdir(), 'sr-k-')) });
    const rootToken = randomUUID();
    const env: NodeJS.ProcessEnv = apiTestEnv({ dataDir, rootToken, socketPath: tokenizer.socketPath, databaseUrl: db.url });
    const call = async (port: number, op: string, body: unknown, token: string = rootToken) => {
      const res = await fetch(`http://127.0.0.1:${port}/v2/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-bunker-token': token },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    try {
      const first = await startApi(env);
      const made = await call(first.port, 'TenantCreate', { tenantname: 'salty', tenantorg: 'Org' });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      const id = made.body.tenantid as number;
      const conn = first.services.db.orm.em.getConnection();
      const salts = (await conn.execute('select id, key_salt from strongroom.tenants order by id')) as { id: number; key_salt: Buffer }[];
      expect(salts.map((s) => s.key_salt.length)).toEqual(salts.map(() => 16));
      expect(new Set(salts.map((s) => s.key_salt.toString('hex'))).size).toBe(salts.length);
      // The tenant's data opens under its salted keys.
      const user = await call(first.port, 'UserCreate', { profile: { email: 'a@salty.example' } }, made.body.xtoken as string);
      expect(user.status, JSON.stringify(user.body)).toBe(200);
      const got = await call(first.port, 'UserGet', { mode: 'email', identity: 'a@salty.example' }, made.body.xtoken as string);
      expect(got.body.profile).toEqual({ email: 'a@salty.example' });
      expect((await call(first.port, 'TenantDelete', { tenantid: id })).status).toBe(200);
      expect(await conn.execute('select 1 from strongroom.tenants where id = ?', [id])).toEqual([]);
      await first.close();

      const second = await startApi(env);
      const next = await call(second.port, 'TenantCreate', { tenantname: 'salty2', tenantorg: 'Org' });
      expect(next.status).toBe(200);
      expect(next.body.tenantid).toBeGreaterThan(id);
      await second.close();
    } finally {
      await tokenizer.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
