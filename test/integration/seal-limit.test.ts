// The tokenizer rotates by itself before a master key version seals too much (here after 40 seals instead of 2^30):
// it warns near the limit, rotates, and the api's background rewrap follows; nothing fails meanwhile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { spawnTokenizer } from '../fixtures/tokenizer.js';
import { createTestDatabase } from '../fixtures/database.js';
import { startApi } from '../../api/compose.js';
import { apiTestEnv } from '../fixtures/vault.js';

describe('the seal limit', () => {
  it('makes the tokenizer rotate by itself, and the rewrap follow', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
    const db = await createTestDatabase();
    const tokenizer = await spawnTokenizer({ dataDir: mkdtempSync(join(tmpdir(), 'sr-k-')), env: { STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS: '40' } });
    const rootToken = randomUUID();
    const api = await startApi(apiTestEnv({ dataDir, rootToken, socketPath: tokenizer.socketPath, databaseUrl: db.url }, { STRONGROOM_REWRAP_SECONDS: '1' }));
    const call = async (op: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${api.port}/v2/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-bunker-token': rootToken },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    try {
      // Each new person wraps one key under the active version.
      const tokens: string[] = [];
      for (let i = 0; i < 50; i++) {
        const made = await call('UserCreate', { profile: { i } });
        expect(made.status).toBe(200);
        tokens.push(made.body.token as string);
      }
      expect(tokenizer.output()).toContain('master key version nears its seal limit');
      expect(tokenizer.output()).toContain('master key version reached its seal limit: rotating');
      let status = await call('SystemGetKeyringStatus', {});
      for (let tries = 0; status.body.rotation.percent !== 100 && tries < 100; tries++) {
        await new Promise((r) => setTimeout(r, 100));
        status = await call('SystemGetKeyringStatus', {});
      }
      expect(status.body).toMatchObject({ active: 2, rotation: { percent: 100 } });
      expect(status.body.seals['1']).toBeGreaterThanOrEqual(40);
      for (const [i, token] of tokens.entries()) expect((await call('UserGet', { mode: 'token', identity: token })).body.profile).toEqual({ i });
    } finally {
      await api.close();
      await tokenizer.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
