// `npm start` end to end: the supervisor runs tokenizer and api, keeps data across restarts, revives either.
// No wait here guesses a duration: each waits for a printed line or for /readyz. Their deadlines only bound a hang,
// and come from the first start as measured on this machine, however busy it is.
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
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

/** The first start may build dist/ first (npm start rebuilds when sources changed): it gets a generous ceiling. */
const FIRST_START_CEILING_MS = 5 * 60_000;

/** What a later start, or the revival of the tokenizer, may take: three times the first start, within bounds. */
function allowanceAfter(firstStartMs: number): number {
  return Math.min(3 * 60_000, Math.max(30_000, 3 * firstStartMs));
}

/** No HOST: the default binding (this machine only) is what is tested. */
function env(): Record<string, string | undefined> {
  return { STRONGROOM_DATA_DIR: dataDir, DATABASE_URL: db.url, STRONGROOM_ROOT_TOKEN: undefined, STRONGROOM_WRAPPING_KEY: undefined, HOST: undefined };
}

/** This machine's addresses other than loopback, which a development vault must not answer on. */
function outsideAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((i) => i && i.family === 'IPv4' && !i.internal)
    .map((i) => i!.address);
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
    const firstStartedAt = performance.now();
    running = await startSupervisor(env(), { npmStart: true });
    const [, rootToken] = await running.waitFor(/shown only this once:\s+([0-9a-f-]{36})/, FIRST_START_CEILING_MS);
    await running.waitReady(FIRST_START_CEILING_MS);
    const allowance = allowanceAfter(performance.now() - firstStartedAt);
    // First contact: the pages, and a line to paste for README's first calls, with the token just made.
    const [, port] = await running.waitFor(/Strongroom is ready on http:\/\/127\.0\.0\.1:(\d+) /, allowance);
    const base = `http://127.0.0.1:${port}`;
    for (const page of ['console', 'portal', 'docs']) expect(running.output()).toContain(`${base}/${page}/`);
    expect(running.output()).toContain(`export VAULT=${base} TOKEN=${rootToken}\n`);
    const home = await fetch(`${running.url}/`, { redirect: 'manual' });
    expect(home.status).toBe(302);
    expect(home.headers.get('location')).toBe('/console/');
    for (const address of outsideAddresses()) {
      await expect(fetch(`http://${address}:${port}/healthz`), address).rejects.toThrow();
    }
    const created = await call(running.url, rootToken!, 'UserCreate', { profile: { email: 'keep@example.com', name: 'Kept' } });
    expect(created.status).toBe(200);
    expect(await running.stop()).toBe(0);

    running = await startSupervisor(env(), { npmStart: true });
    await running.waitReady(allowance);
    expect(running.output()).not.toMatch(/shown only this once/);
    const got = await call(running.url, rootToken!, 'UserGet', { mode: 'email', identity: 'keep@example.com' });
    expect(got.status).toBe(200);
    expect(got.body.profile).toEqual({ email: 'keep@example.com', name: 'Kept' });
    expect((await call(running.url, 'wrong-token', 'UserGet', { mode: 'email', identity: 'keep@example.com' })).status).toBe(403);

    // The tokenizer dies: the supervisor brings it back and the vault answers again.
    const [, pid] = await running.waitFor(/"msg":"tokenizer started","pid":(\d+)/, allowance);
    const beforeKill = running.output().length;
    process.kill(Number(pid), 'SIGKILL');
    await running.waitFor(/tokenizer exited, restarting/, allowance, beforeKill);
    // Ready again means the new tokenizer answers: /readyz asks it on every call.
    await running.waitReady(allowance);
    const again = await call(running.url, rootToken!, 'UserGet', { mode: 'email', identity: 'keep@example.com' });
    expect(again.status).toBe(200);

    // The api dies (a crash, memory exhausted by a client): having listened once, it is started again.
    const [, apiPid] = await running.waitFor(/"msg":"api started","pid":(\d+)/, allowance);
    const beforeApiKill = running.output().length;
    process.kill(Number(apiPid), 'SIGKILL');
    await running.waitFor(/"msg":"api exited, restarting"/, allowance, beforeApiKill);
    await running.waitReady(allowance);
    const revived = await call(running.url, rootToken!, 'UserGet', { mode: 'email', identity: 'keep@example.com' });
    expect(revived.status).toBe(200);

    // Both die at once: the supervisor, left with no child, still brings both back (it once exited here, code 0).
    const [, apiNow] = [...running.output().matchAll(/"msg":"api started","pid":(\d+)/g)].at(-1)!;
    const [, tokenizerNow] = [...running.output().matchAll(/"msg":"tokenizer started","pid":(\d+)/g)].at(-1)!;
    const beforeBoth = running.output().length;
    process.kill(Number(tokenizerNow), 'SIGKILL');
    process.kill(Number(apiNow), 'SIGKILL');
    await running.waitFor(/"msg":"api exited, restarting"/, allowance, beforeBoth);
    await running.waitFor(/tokenizer exited, restarting/, allowance, beforeBoth);
    await running.waitReady(allowance);
    const both = await call(running.url, rootToken!, 'UserGet', { mode: 'email', identity: 'keep@example.com' });
    expect(both.status).toBe(200);

    expect(await running.stop('SIGINT')).toBe(0);
    running = undefined;
  });
});
