// Key custody under the real supervisor (`npm start`'s process tree): no process prints a recovery share, the
// api's environment holds no key material and the tokenizer's holds nothing but its own settings, the keyring is
// private to the tokenizer (its own uid where the supervisor runs as root), and shares from keyring:init still
// issue a new wrapping key through SystemGenerateWrappingKey.
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.js';
import { startSupervisor, type Supervised, supervisedChildren } from '../fixtures/processes.js';
import { initKeyring } from '../../tokenizer/keyring-init.js';

/** Whether every directory above `path` lets other users through (o+x). */
function reachableByOthers(path: string): boolean {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}

/** A Shamir share of a 32-byte key is 33 bytes: 66 hex characters; the labelled form keyring:init prints. */
const SHARE_SHAPED = /share \d+: |\b[0-9a-f]{66}\b/i;

let running: Supervised | undefined;
let db: TestDatabase | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await db?.drop();
  db = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'src-'));
  dirs.push(dir);
  return dir;
}

/** The supervisor's children, by which main they run. */
function childrenOf(pid: number): { api: number; tokenizer: number } {
  const found = supervisedChildren(pid);
  expect(found.api, 'the api child').toBeDefined();
  expect(found.tokenizer, 'the tokenizer child').toBeDefined();
  return found as { api: number; tokenizer: number };
}

function environOf(pid: number): Map<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

function uidOf(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

const mode = (path: string) => statSync(path).mode & 0o7777;

describe('key custody under the supervisor', () => {
  it('prints no share at first start, says how to get them, and gives each process only its own settings', async () => {
    const dir = dataDir();
    db = await createTestDatabase();
    const wrappingKey = randomBytes(32).toString('hex');
    const rootToken = randomUUID();
    running = await startSupervisor({
      STRONGROOM_DATA_DIR: dir,
      DATABASE_URL: db.url,
      STRONGROOM_WRAPPING_KEY: wrappingKey,
      STRONGROOM_WRAPPING_KEY_FILE: undefined,
      STRONGROOM_RECOVERY_RECIPIENTS: 'age1 placeholders the api must not see',
      STRONGROOM_ROOT_TOKEN: rootToken,
      STRONGROOM_SMTP_URL: 'smtp://127.0.0.1:2525',
      STRONGROOM_S3_BUCKET: 'unused-bucket',
      AWS_SECRET_ACCESS_KEY: 'canary-aws-secret',
      SOME_UNRELATED_SECRET: 'canary-unrelated',
      STRONGROOM_TOKENIZER_UID: undefined,
      STRONGROOM_API_UID: undefined,
      STRONGROOM_LOG_LEVEL: 'info',
    });
    await running.waitReady();
    const { api, tokenizer } = childrenOf(running.child.pid!);

    const apiEnv = environOf(api);
    expect([...apiEnv.keys()].filter((k) => /WRAPPING_KEY|RECOVERY/.test(k))).toEqual([]);
    expect([...apiEnv.values()].join('\n')).not.toContain(wrappingKey);
    // What the api does need, it has: the environment was there to be split.
    expect(apiEnv.get('STRONGROOM_ROOT_TOKEN')).toBe(rootToken);
    expect(apiEnv.get('STRONGROOM_SMTP_URL')).toBe('smtp://127.0.0.1:2525');

    const tokEnv = environOf(tokenizer);
    expect(tokEnv.get('STRONGROOM_WRAPPING_KEY')).toBe(wrappingKey);
    for (const name of ['DATABASE_URL', 'STRONGROOM_ROOT_TOKEN', 'STRONGROOM_SMTP_URL', 'STRONGROOM_S3_BUCKET', 'AWS_SECRET_ACCESS_KEY', 'SOME_UNRELATED_SECRET']) {
      expect(tokEnv.has(name), `tokenizer has ${name}`).toBe(false);
    }
    expect([...tokEnv.values()].join('\n')).not.toContain(rootToken);

    const out = running.output();
    expect(out).not.toMatch(SHARE_SHAPED);
    // Every line of every process, the supervisor's too, in one shape: `level` a word, `time` in ms, `component`.
    const lines = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(new Set(lines.map((l) => l.component))).toEqual(new Set(['supervisor', 'tokenizer', 'api']));
    for (const l of lines) {
      expect(['trace', 'debug', 'info', 'warn', 'error', 'fatal'], JSON.stringify(l)).toContain(l.level);
      expect(typeof l.time).toBe('number');
    }
    expect(out).not.toContain(wrappingKey);
    expect(out).toMatch(/no recovery shares exist.*npm run keyring:init/);

    // The keyring is private to its owner, and so is the socket.
    expect(mode(join(dir, 'tokenizer'))).toBe(0o700);
    expect(mode(join(dir, 'tokenizer', 'keyring.json'))).toBe(0o600);
    expect(mode(join(dir, 'run', 'tokenizer.sock')) & 0o077).toBe(0);
  });

  it('stops its api and tokenizer once it is killed itself, leaving no orphan holding the port or the keyring', async () => {
    const dir = dataDir();
    db = await createTestDatabase();
    const supervisor = await startSupervisor({ STRONGROOM_DATA_DIR: dir, DATABASE_URL: db.url, STRONGROOM_TOKENIZER_UID: undefined, STRONGROOM_API_UID: undefined });
    running = supervisor;
    await supervisor.waitReady();
    const { api, tokenizer } = childrenOf(supervisor.child.pid!);
    await supervisor.stop('SIGKILL');
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(() => [api, tokenizer].filter(alive), { timeout: 20_000, interval: 200 }).toEqual([]);
  });

  // Other uids must be able to reach the checkout and the node binary: a clone under a private directory (a
  // mktemp -d, mode 0700) cannot run the vault under other uids, here or in production.
  it.skipIf(process.getuid?.() !== 0 || !reachableByOthers(process.execPath) || !reachableByOthers(process.cwd()))('as root, runs the tokenizer and the api under their own uids; the api uid cannot read the keyring', async () => {
    const dir = dataDir();
    db = await createTestDatabase();
    const [tokenizerUid, apiUid] = [65534, 65533];
    running = await startSupervisor({
      STRONGROOM_DATA_DIR: dir,
      DATABASE_URL: db.url,
      STRONGROOM_WRAPPING_KEY: undefined,
      STRONGROOM_WRAPPING_KEY_FILE: undefined,
      STRONGROOM_ROOT_TOKEN: randomUUID(),
      STRONGROOM_TOKENIZER_UID: String(tokenizerUid),
      STRONGROOM_API_UID: String(apiUid),
      STRONGROOM_LOG_LEVEL: 'info',
    });
    // Ready means the api, under its own uid, reached the tokenizer's socket.
    await running.waitReady();
    const { api, tokenizer } = childrenOf(running.child.pid!);
    expect(uidOf(tokenizer)).toBe(tokenizerUid);
    expect(uidOf(api)).toBe(apiUid);

    const keyringDir = join(dir, 'tokenizer');
    expect(statSync(keyringDir).uid).toBe(tokenizerUid);
    expect(mode(keyringDir)).toBe(0o700);
    for (const f of ['keyring.json', 'wrapping.key']) {
      expect(statSync(join(keyringDir, f)).uid).toBe(tokenizerUid);
      expect(mode(join(keyringDir, f))).toBe(0o600);
      const read = spawnSync('cat', [join(keyringDir, f)], { uid: apiUid, gid: apiUid });
      expect(read.status, `the api's uid reads ${f}`).not.toBe(0);
    }
    const runDir = join(dir, 'run');
    expect(statSync(runDir).gid).toBe(apiUid);
    expect(mode(runDir)).toBe(0o3770);
    expect(mode(join(runDir, 'tokenizer.sock')) & 0o7).toBe(0);
    // A development first start: the keyring is made without shares, and says how to get them.
    expect(running.output()).not.toMatch(SHARE_SHAPED);
    expect(running.output()).toMatch(/npm run keyring:init/);
  });

  it('issues a new wrapping key for three shares that keyring:init printed, and no process prints them', async () => {
    const dir = dataDir();
    db = await createTestDatabase();
    const wrappingKey = randomBytes(32);
    let shown = '';
    await initKeyring(
      { dataDir: dir, wrappingKey, socketPath: join(dir, 'run', 'tokenizer.sock') },
      { recipients: [], outDir: dir, print: true, replace: false, show: (t) => (shown += t), notice: () => {} },
    );
    const shares = [...shown.matchAll(/share \d: ([0-9a-f]+)/g)].map((m) => m[1]!);
    expect(shares).toHaveLength(5);
    const rootToken = randomUUID();
    running = await startSupervisor({
      STRONGROOM_DATA_DIR: dir,
      DATABASE_URL: db.url,
      STRONGROOM_WRAPPING_KEY: wrappingKey.toString('hex'),
      STRONGROOM_WRAPPING_KEY_FILE: undefined,
      STRONGROOM_ROOT_TOKEN: rootToken,
      STRONGROOM_TOKENIZER_UID: undefined,
      STRONGROOM_API_UID: undefined,
    });
    await running.waitReady();
    const res = await fetch(`${running.url}/v2/SystemGenerateWrappingKey`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bunker-token': rootToken },
      body: JSON.stringify({ key1: shares[1], key2: shares[3], key3: shares[4] }),
    });
    const body = (await res.json()) as { status: string; wrappingkey?: string };
    expect(res.status).toBe(200);
    expect(body.wrappingkey).toMatch(/^[0-9a-f]{64}$/);
    expect(body.wrappingkey).not.toBe(wrappingKey.toString('hex'));
    const out = running.output();
    expect(out).not.toMatch(SHARE_SHAPED);
    expect(out).not.toMatch(/no recovery shares exist/);
  });
});
