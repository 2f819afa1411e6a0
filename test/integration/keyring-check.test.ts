// A database started with one keyring and served later by a tokenizer holding another: the api refuses to serve,
// /readyz fails, and the log names the keyring the database expects (never a secret). The right keyring again
// and it serves. (A database sealed before per-person keys is upgraded instead: legacy-upgrade.test.ts.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { spawnTokenizer } from '../fixtures/tokenizer.js';
import { createTestDatabase } from '../fixtures/database.js';
import { startApi } from '../../api/compose.js';

describe('the keyring sentinel', () => {
  it('makes the api refuse a tokenizer whose keyring does not match, and name the expected one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
    const db = await createTestDatabase();
    const right = await spawnTokenizer({ dataDir: mkdtempSync(join(tmpdir(), 'sr-k1-')) });
    const wrong = await spawnTokenizer({ dataDir: mkdtempSync(join(tmpdir(), 'sr-k2-')) });
    const rootToken = randomUUID();
    const env = (socket: string): NodeJS.ProcessEnv => ({
      PORT: '0',
      HOST: '127.0.0.1',
      STRONGROOM_DATA_DIR: dataDir,
      STRONGROOM_ROOT_TOKEN: rootToken,
      STRONGROOM_TOKENIZER_SOCKET: socket,
      STRONGROOM_LOG_LEVEL: 'error',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    });
    const call = async (port: number, op: string, body: unknown = {}) => {
      const res = await fetch(`http://127.0.0.1:${port}/v2/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-bunker-token': rootToken },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    try {
      const first = await startApi(env(right.socketPath));
      const token = (await call(first.port, 'UserCreate', { profile: { email: 'kc@example.com' } })).body.token as string;
      const expected = (await first.services.tokenizer.keyringInfo()).keyring_id;
      expect(expected).toMatch(/^[0-9a-f]{16}$/);
      expect((await fetch(`http://127.0.0.1:${first.port}/readyz`)).status).toBe(200);
      await first.close();

      const logged: string[] = [];
      const capture = new Writable({ write: (chunk, _enc, done) => (logged.push(String(chunk)), done()) });
      const origWrite = process.stdout.write.bind(process.stdout);
      process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        capture.write(chunk);
        return origWrite(chunk as string, ...(rest as []));
      }) as typeof process.stdout.write;
      let second;
      try {
        second = await startApi(env(wrong.socketPath));
      } finally {
        process.stdout.write = origWrite;
      }
      const ready = await fetch(`http://127.0.0.1:${second.port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ keyring: 'mismatch' });
      const refused = await call(second.port, 'UserGet', { mode: 'token', identity: token });
      expect(refused.status).toBe(503);
      expect(refused.body.message).toBe('The keyring does not match this database');
      const line = logged.find((l) => l.includes('expectedKeyring'));
      expect(line).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ expectedKeyring: expected, tokenizerKeyring: (await second.services.tokenizer.keyringInfo()).keyring_id });
      await second.close();

      const third = await startApi(env(right.socketPath));
      expect((await fetch(`http://127.0.0.1:${third.port}/readyz`)).status).toBe(200);
      expect((await call(third.port, 'UserGet', { mode: 'token', identity: token })).body.profile).toEqual({ email: 'kc@example.com' });
      await third.close();
    } finally {
      await right.stop();
      await wrong.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
