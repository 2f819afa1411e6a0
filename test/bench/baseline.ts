// The A/B harness of the benchmarks that compare this tree with an earlier commit in the same run
// (person-keys.ts, audit-keys.ts): the earlier source unpacked beside this tree's node_modules, and a vault of
// either started on a database of its own.
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@localhost/postgres?host=/var/run/postgresql';
const here = resolve(fileURLToPath(new URL('../..', import.meta.url)));

function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

/**
 * The source of `ref`, unpacked (no git worktree is made) beside this tree's node_modules when its lockfile is this
 * tree's, else with its own (`npm ci`, once: a ref from before a dependency changed needs what it was built on).
 */
export function baselineTree(ref: string): string {
  const dir = join(tmpdir(), `sr-baseline-${ref}`);
  if (!existsSync(join(dir, 'api'))) {
    mkdirSync(dir, { recursive: true });
    execSync(`git archive ${ref} | tar -x -C ${dir}`, { cwd: here, stdio: 'inherit' });
  }
  if (!existsSync(join(dir, 'node_modules'))) {
    if (readFileSync(join(dir, 'package-lock.json'), 'utf8') === readFileSync(join(here, 'package-lock.json'), 'utf8')) {
      symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'));
    } else {
      execSync('npm ci --ignore-scripts --no-audit --no-fund', { cwd: dir, stdio: 'inherit' });
    }
  }
  return dir;
}

export interface Vault {
  base: string;
  token: string;
  url: string;
  stop(): Promise<void>;
}

/** A vault (supervisor, api and tokenizer) of the source tree at `root`, on a database of its own. */
/** `preload`: a module every process of the vault imports first (`--import`), e.g. unkeyed-links.ts. */
export async function startVault(root: string, env: Record<string, string> = {}, preload?: string): Promise<Vault> {
  const name = `sr_ab_bench_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-ab-'));
  const port = await freePort();
  const token = randomUUID();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ...(preload ? ['--import', pathToFileURL(preload).href] : []), 'api/supervisor.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: url.toString(),
      STRONGROOM_DATA_DIR: dataDir,
      STRONGROOM_ROOT_TOKEN: token,
      STRONGROOM_LOG_LEVEL: 'warn',
      STRONGROOM_STARTED_AT: String(Date.now()),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`vault did not start:\n${out.slice(-3000)}`)), 120_000);
    const on = (d: Buffer) => {
      out += d.toString();
      if (/is ready on/.test(out)) {
        clearTimeout(timer);
        res();
      }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
  });
  return {
    base: `http://127.0.0.1:${port}`,
    token,
    url: url.toString(),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      const c = new pg.Client({ connectionString: BASE_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A call that must succeed. */
export async function post(v: Vault, op: string, body: unknown): Promise<any> {
  const res = await fetch(`${v.base}/v2/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-token': v.token }, body: JSON.stringify(body) });
  const answer = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${op}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** `n` small people, by UserCreateBulk; their tokens. */
export async function people(v: Vault, n: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < n; i += 1000) {
    const records = Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ profile: { email: `p${i + k}-${randomUUID().slice(0, 6)}@bench.example`, name: 'Bench' } }));
    tokens.push(...((await post(v, 'UserCreateBulk', { records })).created as { token: string }[]).map((c) => c.token));
  }
  return tokens;
}

