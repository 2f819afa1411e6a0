// `npm start` end to end: the supervisor runs tokenizer and api, keeps data across restarts, revives the tokenizer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSupervisor, type Supervised } from '../fixtures/processes.js';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.js';

let dataDir: string;
let db: TestDatabase;
let running: Supervised | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sre-'));
  db = await createTestDatabase();
});
afterAll(async () => {
  await running?.stop();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function env(): Record<string, string | undefined> {
  return { STRONGROOM_DATA_DIR: dataDir, DATABASE_URL: db.url, STRONGROOM_ROOT_TOKEN: undefined, STRONGROOM_WRAPPING_KEY: undefined };
}

async function call(url: string, token: string, op: string, body: unknown) {
  const res = await fetch(`${url}/v2/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bunker-token': token },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('npm start', () => {
  it('creates a root token and keyring on first start, keeps users across a restart, and stops cleanly', async () => {
    running = await startSupervisor(env());
    const [, rootToken] = await running.waitFor(/shown only this once:\s+([0-9a-f-]{36})/);
    await running.waitReady();
    const created = await call(running.url, rootToken!, 'UserCreate', { profile: { email: 'keep@example.com', name: 'Kept' } });
    expect(created.status).toBe(200);
    expect(await running.stop()).toBe(0);

    running = await startSupervisor(env());
    await running.waitReady();
    expect(running.output()).not.toMatch(/shown only this once/);
    const got = await call(running.url, rootToken!, 'UserGet', { mode: 'email', identity: 'keep@example.com' });
    expect(got.status).toBe(200);
    expect(got.body.profile).toEqual({ email: 'keep@example.com', name: 'Kept' });
    expect((await call(running.url, 'wrong-token', 'UserGet', { mode: 'email', identity: 'keep@example.com' })).status).toBe(403);

    // The tokenizer dies: the supervisor brings it back and the vault answers again.
    const [, pid] = await running.waitFor(/"msg":"tokenizer started","pid":(\d+)/);
    process.kill(Number(pid), 'SIGKILL');
    await running.waitFor(/tokenizer exited, restarting/);
    await running.waitReady();
    const again = await call(running.url, rootToken!, 'UserGet', { mode: 'email', identity: 'keep@example.com' });
    expect(again.status).toBe(200);

    expect(await running.stop('SIGINT')).toBe(0);
    running = undefined;
  });
});
