// The whole vault (the real supervisor, api and tokenizer processes) with its keyring in SoftHSM2: auto-unseal after
// a SIGKILL with no key material in any file, environment or log; a key object removed while serving turns reads
// into 503 (never 500, never plaintext) after the key-cache TTL and back once restored; and a populated vault moved
// static → pkcs11 → static while reads run, none failing.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.js';
import { startSupervisor, type Supervised, supervisedChildren } from '../fixtures/processes.js';
import { buildProfile } from '../fixtures/vault.js';
import { createToken, filesHolding, holdsKey, NO_SOFTHSM, type TestToken } from '../fixtures/softhsm.js';
import { initKeyring, rewrapKeyring } from '../../tokenizer/keyring-init.js';
import { Pkcs11Custody } from '../../tokenizer/custody-pkcs11.js';

let running: Supervised | undefined;
let db: TestDatabase | undefined;
let token: TestToken | undefined;
const dirs: string[] = [];

afterEach(async () => {
  // The children too: left to themselves they stop gracefully once the supervisor is gone, and would still be
  // writing to the data directory while it is removed.
  if (running) await killVault(running).catch(() => undefined);
  running = undefined;
  await db?.drop();
  db = undefined;
  token?.remove();
  token = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The supervisor's api and tokenizer children. */
function childrenOf(pid: number): { api: number; tokenizer: number } {
  const found = supervisedChildren(pid);
  return found as { api: number; tokenizer: number };
}

/** SIGKILL to the supervisor and both children at once: a crash of the whole vault, nothing cleaned up. */
async function killVault(vault: Supervised): Promise<void> {
  const { api, tokenizer } = childrenOf(vault.child.pid!);
  for (const pid of [api, tokenizer]) if (pid) process.kill(pid, 'SIGKILL');
  await vault.stop('SIGKILL');
}

async function call(vault: Supervised, rootToken: string, op: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${vault.url}/v2/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bunker-token': rootToken },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function vaultEnv(extra: Record<string, string | undefined>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
  dirs.push(dataDir);
  db ??= await createTestDatabase();
  return {
    STRONGROOM_DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    STRONGROOM_ROOT_TOKEN: randomUUID(),
    STRONGROOM_WRAPPING_KEY: undefined,
    STRONGROOM_WRAPPING_KEY_FILE: undefined,
    STRONGROOM_TOKENIZER_UID: undefined,
    STRONGROOM_API_UID: undefined,
    STRONGROOM_LOG_LEVEL: 'info',
    ...extra,
  } as Record<string, string | undefined> & { STRONGROOM_DATA_DIR: string; STRONGROOM_ROOT_TOKEN: string };
}

/** keyring:init as an operator runs it, with the HSM custody of `token`. */
async function initInHsm(dataDir: string, t: TestToken): Promise<void> {
  process.env.SOFTHSM2_CONF = t.conf;
  const hsm = Pkcs11Custody.open(t.settings, { create: true });
  try {
    await initKeyring({ dataDir, wrappingKey: undefined, hsm, socketPath: join(dataDir, 'none.sock') }, {
      recipients: [], outDir: dataDir, print: true, replace: false, show: () => {}, notice: () => {},
    });
  } finally {
    hsm.close();
    delete process.env.SOFTHSM2_CONF;
  }
}

async function createPeople(vault: Supervised, rootToken: string, n: number): Promise<{ token: string; profile: Record<string, unknown> }[]> {
  const people = [];
  for (let i = 0; i < n; i++) {
    const profile = buildProfile();
    const res = await call(vault, rootToken, 'UserCreate', { profile });
    expect(res.status, res.text).toBe(200);
    people.push({ token: JSON.parse(res.text).token as string, profile });
  }
  return people;
}

async function readsBack(vault: Supervised, rootToken: string, people: { token: string; profile: Record<string, unknown> }[]): Promise<void> {
  for (const p of people) {
    const res = await call(vault, rootToken, 'UserGet', { mode: 'token', identity: p.token });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text).profile).toEqual(p.profile);
  }
}

describe.skipIf(NO_SOFTHSM)(`the vault with its keyring in an HSM${NO_SOFTHSM ? ` (skipped: ${NO_SOFTHSM})` : ''}`, () => {
  it('unseals by itself after a SIGKILL of the whole vault, and its key is in no file, environment or log', async () => {
    token = createToken();
    // A key the test can read (the one keyring:init makes cannot be): what the checks below look for.
    const keyBytes = token.readableKey();
    const env = await vaultEnv(token.env);
    await initInHsm(env.STRONGROOM_DATA_DIR, token);
    running = await startSupervisor(env);
    await running.waitReady();
    const people = await createPeople(running, env.STRONGROOM_ROOT_TOKEN, 5);
    const first = childrenOf(running.child.pid!);
    const environs = [first.api, first.tokenizer].map((pid) => readFileSync(`/proc/${pid}/environ`));
    await killVault(running);
    let logs = running.output();

    running = await startSupervisor(env);
    await running.waitReady();
    await readsBack(running, env.STRONGROOM_ROOT_TOKEN, people);
    const second = childrenOf(running.child.pid!);
    environs.push(...[second.api, second.tokenizer].map((pid) => readFileSync(`/proc/${pid}/environ`)));
    logs += running.output();
    expect(logs).toMatch(/keyring unsealed by the HSM/);

    expect(filesHolding(env.STRONGROOM_DATA_DIR, keyBytes)).toEqual([]);
    expect(existsSync(join(env.STRONGROOM_DATA_DIR, 'tokenizer', 'wrapping.key'))).toBe(false);
    for (const e of environs) expect(holdsKey(e, keyBytes)).toBe(false);
    expect(holdsKey(Buffer.from(logs), keyBytes)).toBe(false);
    // The PIN reaches the tokenizer alone and no log.
    expect(environs[0]!.includes(Buffer.from(token.settings.pin))).toBe(false);
    expect(logs).not.toContain(token.settings.pin);

    // The checks would see the key had it leaked: in a file, in a process's environment, in a log line.
    const canary = mkdtempSync(join(tmpdir(), 'sr-canary-'));
    dirs.push(canary);
    writeFileSync(join(canary, 'leak.json'), JSON.stringify({ k: keyBytes.toString('base64') }));
    expect(filesHolding(canary, keyBytes)).toEqual([join(canary, 'leak.json')]);
    const child = spawn('sleep', ['30'], { env: { LEAK: keyBytes.toString('hex') } });
    try {
      expect(holdsKey(readFileSync(`/proc/${child.pid}/environ`), keyBytes)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
    expect(holdsKey(Buffer.from(`{"msg":"x","key":"${keyBytes.toString('hex').toUpperCase()}"}`), keyBytes)).toBe(true);
  });

  it('says NOT ready, and why, when the HSM refuses the PIN (never "ready" while /readyz answers 503), and no PIN', async () => {
    token = createToken();
    const env = await vaultEnv(token.env);
    await initInHsm(env.STRONGROOM_DATA_DIR, token);
    const wrongPin = `${token.settings.pin}9`;
    running = await startSupervisor({ ...env, STRONGROOM_PKCS11_PIN: wrongPin });
    await running.waitFor(/Strongroom is listening on \S+ but is NOT ready \([^)]*\): the tokenizer or its key custody does not answer/);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(503);
    expect(running.output()).not.toMatch(/Strongroom is ready on/);
    expect(running.output()).not.toContain(wrongPin);
  });

  it('answers 503 (never 500, never plaintext) once the key object is gone past the key-cache TTL, and serves again when it is back', async () => {
    token = createToken();
    const env = await vaultEnv({ ...token.env, STRONGROOM_TOKENIZER_KEY_CACHE_SECONDS: '2' });
    await initInHsm(env.STRONGROOM_DATA_DIR, token);
    running = await startSupervisor(env);
    await running.waitReady();
    const [person] = await createPeople(running, env.STRONGROOM_ROOT_TOKEN, 1);
    const backup = token.backup();
    token.deleteKey();

    const seen = new Set<number>();
    await expect
      .poll(
        async () => {
          const res = await call(running!, env.STRONGROOM_ROOT_TOKEN, 'UserGet', { mode: 'token', identity: person!.token });
          seen.add(res.status);
          if (res.status !== 200) expect(res.text).not.toContain(String(person!.profile.email));
          return res.status;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(503);
    expect([...seen].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(503);
    await running.waitFor(/key custody away longer than the key-cache TTL/);

    token.restore(backup);
    await running.waitReady(30_000);
    await readsBack(running, env.STRONGROOM_ROOT_TOKEN, [person!]);
  });

  it('moves a populated vault static → pkcs11 → static with reads running during each move, none failing', async () => {
    token = createToken();
    const env = await vaultEnv({ SOFTHSM2_CONF: token.conf });
    const dataDir = env.STRONGROOM_DATA_DIR;
    running = await startSupervisor(env);
    await running.waitReady();
    const people = await createPeople(running, env.STRONGROOM_ROOT_TOKEN, 6);

    /** Reads round the people before, while and after `move` runs; answers the reads that did not succeed. */
    const readDuring = async (move: () => Promise<void>) => {
      let moving = true;
      const failed: string[] = [];
      let reads = 0;
      const loop = (async () => {
        for (let i = 0; moving; i++) {
          const p = people[i % people.length]!;
          const res = await call(running!, env.STRONGROOM_ROOT_TOKEN, 'UserGet', { mode: 'token', identity: p.token });
          reads++;
          if (res.status !== 200 || JSON.parse(res.text).profile.email !== p.profile.email) failed.push(`${res.status} ${res.text}`);
        }
      })();
      await expect.poll(() => reads).toBeGreaterThanOrEqual(people.length);
      await move();
      const after = reads;
      // The tokenizer's own check of keyring.json (every 2 s) sees the file it cannot open now: it keeps serving.
      await running!.waitFor(/keyring.json changed but cannot be reloaded, serving the keys in memory/, 30_000, logFrom);
      await expect.poll(() => reads, { timeout: 30_000 }).toBeGreaterThanOrEqual(after + people.length);
      moving = false;
      await loop;
      return failed;
    };
    let logFrom = 0;

    process.env.SOFTHSM2_CONF = token.conf;
    try {
      expect(await readDuring(() => rewrapKeyring({ dataDir, wrappingKey: undefined, pkcs11: token!.settings }, 'pkcs11', () => {}).then(() => {}))).toEqual([]);
    } finally {
      delete process.env.SOFTHSM2_CONF;
    }
    await running.stop();
    running = await startSupervisor({ ...env, ...token.env });
    await running.waitReady();
    await readsBack(running, env.STRONGROOM_ROOT_TOKEN, people);

    process.env.SOFTHSM2_CONF = token.conf;
    try {
      logFrom = running.output().length;
      expect(await readDuring(() => rewrapKeyring({ dataDir, wrappingKey: undefined, pkcs11: token!.settings }, 'static', () => {}).then(() => {}))).toEqual([]);
    } finally {
      delete process.env.SOFTHSM2_CONF;
    }
    await running.stop();
    running = await startSupervisor(env);
    await running.waitReady();
    await readsBack(running, env.STRONGROOM_ROOT_TOKEN, people);
  });
});
