// Before and after, in one run: `npx tsx test/bench/ab.ts <ref>` starts the vault of git ref <ref> (unpacked with
// `git archive` beside this tree's node_modules) and this tree's vault, each from source on a database of its own
// with the bench's profiles, and loads UserUpdate, UserGet (by email), AppdataUpdate and AgreementAccept at 16
// connections on each, interleaved A B A B (UserUpdate and UserGet with the reference beside each pair), then UserGet's
// p50 at one connection the same way; prints the better of two rounds and the ratios after/before. BENCH_QUICK=1 uses
// 3 s windows. Commit bodies quote its figures.
// Each row also gives the CPU ms per call of each side's api (its supervisor counted with it), tokenizer,
// PostgreSQL and the load generator (/proc, cpu-time.ts), the lower of the two rounds: less noisy than req/s.
// Its spread: an A/A run (the same code on both sides) gave 0.84x to 1.04x on this machine.
// `npx tsx test/bench/ab.ts --custody` compares this tree with itself instead: before in static custody, after with
// its keyring sealed in an HSM (a SoftHSM2 token made for the run): the HSM is touched only at start, on data-key
// cache misses and on tenant KEK changes, so the two should serve alike.
import { execSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../fixtures/processes.js';
import { createToken, type TestToken } from '../fixtures/softhsm.js';
import { hammer } from './load.js';
import { benchProfile } from './profiles.js';
import { startReference } from './references.js';
import { benchDatabase } from './database.js';
import { percentile } from './stats.js';
import { cpuDuring, processes } from './cpu-time.js';

const SECONDS = process.env.BENCH_QUICK === '1' ? 3 : 10;
const PEOPLE = 2000;
const here = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const custody = process.argv[2] === '--custody';
const ref = custody ? 'HEAD' : (process.argv[2] ?? 'HEAD~1');
const run = randomBytes(3).toString('hex');
const profiles = Array.from({ length: PEOPLE }, (_, i) => benchProfile(1_000_000 + i, run));
const emails = profiles.map((p) => p.email as string);
const drops: (() => Promise<void>)[] = [];

async function database(): Promise<string> {
  const { url, drop } = await benchDatabase('ab');
  drops.push(drop);
  return url;
}

async function startVault(root: string, hsm?: TestToken) {
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-ab-'));
  // The keyring made in the HSM first, as an operator's ceremony does (npm run keyring:init -- --pkcs11).
  if (hsm) execSync(`node_modules/.bin/node --import tsx tokenizer/keyring-init.ts --pkcs11 --print`, { cwd: root, env: { ...process.env, ...hsm.env, STRONGROOM_DATA_DIR: dataDir }, stdio: 'ignore' });
  const port = await freePort();
  const token = randomUUID();
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/supervisor.ts'], {
    cwd: root,
    env: { ...process.env, ...hsm?.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: await database(), STRONGROOM_DATA_DIR: dataDir, STRONGROOM_ROOT_TOKEN: token, STRONGROOM_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((res, rej) => {
    const on = (d: Buffer) => {
      out += d.toString();
      if (/is ready on/.test(out)) res();
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.once('exit', () => rej(new Error(`vault exited:\n${out.slice(-3000)}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const post = async (op: string, body: unknown) => {
    const res = await fetch(`${base}/v2/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-token': token }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${op}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, any>;
  };
  const tokens: string[] = [];
  for (let i = 0; i < PEOPLE; i += 1000) {
    const created = await post('UserCreateBulk', { records: profiles.slice(i, i + 1000).map((profile) => ({ profile })) });
    tokens.push(...(created.created as { token: string }[]).map((c) => c.token));
  }
  // Every person gets an app record first, so each AppdataUpdate merges into one that exists (a version kept).
  for (let i = 0; i < tokens.length; i += 64) {
    await Promise.all(tokens.slice(i, i + 64).map((t) => post('AppdataCreate', { mode: 'token', identity: t, appname: 'bench', appdata: { plan: 'basic', visits: 0 } })));
  }
  await post('LegalBasisCreate', { brief: 'bench-marketing', basistype: 'consent' });
  return {
    base,
    headers: { 'x-bunker-token': token },
    tokens,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Vault = Awaited<ReturnType<typeof startVault>>;

/** UserGet by email one at a time on one keep-alive connection: the p50 in ms of 1,000 after 200 warm-up. */
async function p50(v: { base: string; headers: Record<string, string> }): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 1200; i++) {
    const t = performance.now();
    const res = await fetch(`${v.base}/v2/UserGet`, { method: 'POST', headers: { 'content-type': 'application/json', ...v.headers }, body: JSON.stringify({ mode: 'email', identity: emails[(i * 7919) % PEOPLE] }) });
    if (res.status !== 200) throw new Error(`UserGet: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    if (i >= 200) times.push(performance.now() - t);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}
const loads = {
  UserUpdate: (v: { base: string; headers: Record<string, string> }) =>
    hammer(v.base, v.headers, 'UserUpdate', SECONDS, (i) => ({ mode: 'email', identity: emails[(i * 7919) % PEOPLE], profile: { visits: i } })),
  UserGet: (v: { base: string; headers: Record<string, string> }) => hammer(v.base, v.headers, 'UserGet', SECONDS, (i) => ({ mode: 'email', identity: emails[(i * 7919) % PEOPLE] })),
  AppdataUpdate: (v: Vault) =>
    hammer(v.base, v.headers, 'AppdataUpdate', SECONDS, (i) => ({ mode: 'token', identity: v.tokens[i % PEOPLE], appname: 'bench', appdata: { visits: i, last: `page-${i % 97}` } })),
  AgreementAccept: (v: Vault) =>
    hammer(v.base, v.headers, 'AgreementAccept', SECONDS, (i) => ({ mode: 'token', identity: v.tokens[i % PEOPLE], brief: 'bench-marketing', agreementmethod: 'web-form', finaltime: '1y' })),
};

/** The processes under `pid` (the supervisor: its api and tokenizer), by walking each process's parents. */
function under(pid: number): (p: { pid: number; ppid: number }) => boolean {
  let parents: Map<number, number> | undefined; // read once, after the load
  return (p) => {
    parents ??= new Map(processes().map((q) => [q.pid, q.ppid]));
    for (let at: number | undefined = p.pid; at !== undefined && at > 1; at = parents.get(at)) if (at === pid) return true;
    return false;
  };
}

/**
 * `load` on `v`, with the CPU ms per call of the vault's processes (api and tokenizer), PostgreSQL and this
 * process (the load generator): one load runs at a time, so every PostgreSQL backend's time is this load's.
 */
async function measured(load: (v: Vault) => ReturnType<typeof hammer>, v: Vault): Promise<{ rps: number; cpu: Record<string, number> }> {
  let rps = 0;
  const vault = under(v.pid);
  const isTokenizer = (pid: number) => {
    try {
      return /tokenizer/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  };
  const { perCall } = await cpuDuring({ api: (p) => vault(p) && !isTokenizer(p.pid), tokenizer: (p) => vault(p) && isTokenizer(p.pid), postgres: (p) => p.comm === 'postgres', 'load generator': (p) => p.pid === process.pid }, async () => {
    const r = await load(v);
    rps = r.rps;
    return Math.max(1, r.rps * SECONDS);
  });
  return { rps, cpu: perCall };
}

const cpuText = (cpu: Record<string, number>) => `${Object.values(cpu).reduce((a, b) => a + b, 0).toFixed(3)} ms (${Object.entries(cpu).map(([k, ms]) => `${k} ${ms.toFixed(3)}`).join(', ')})`;
const cpuTotal = (cpu: Record<string, number>) => Object.values(cpu).reduce((a, b) => a + b, 0);

const baseline = custody ? here : join(tmpdir(), `sr-ab-${execSync(`git rev-parse --short ${ref}`, { cwd: here }).toString().trim()}`);
if (!custody && !existsSync(join(baseline, 'api'))) {
  mkdirSync(baseline, { recursive: true });
  execSync(`git archive ${ref} | tar -x -C ${baseline}`, { cwd: here, stdio: 'inherit' });
}
if (!custody && !existsSync(join(baseline, 'node_modules'))) symlinkSync(join(here, 'node_modules'), join(baseline, 'node_modules'));

const reference = await startReference(await database(), 'ref_bench');
const hsm = custody ? createToken('strongroom-bench', 'strongroom-bench-kek') : undefined;
const before = await startVault(baseline);
const after = await startVault(here, hsm);
try {
  await reference.seed(profiles);
  const refServer = { base: reference.url, headers: {} };
  const best: Record<string, { before: number; after: number; ref: number; cpuBefore?: Record<string, number>; cpuAfter?: Record<string, number> }> = {};
  for (const [op, load] of Object.entries(loads) as [keyof typeof loads, (v: Vault) => ReturnType<typeof hammer>][]) {
    // Warm-up of all three, then A B A B with the reference beside each pair.
    for (const v of [before, after]) await load(v);
    if (op === 'UserUpdate' || op === 'UserGet') await load({ ...refServer, tokens: [] } as unknown as Vault);
    const b: (typeof best)[string] = { before: 0, after: 0, ref: 0 };
    for (let round = 0; round < 2; round++) {
      // The better round's rate, and the lower CPU per call of the two rounds (each side's own).
      const mb = await measured(load, before);
      b.before = Math.max(b.before, mb.rps);
      if (!b.cpuBefore || cpuTotal(mb.cpu) < cpuTotal(b.cpuBefore)) b.cpuBefore = mb.cpu;
      const ma = await measured(load, after);
      b.after = Math.max(b.after, ma.rps);
      if (!b.cpuAfter || cpuTotal(ma.cpu) < cpuTotal(b.cpuAfter)) b.cpuAfter = ma.cpu;
      if (op === 'UserUpdate' || op === 'UserGet') b.ref = Math.max(b.ref, (await load({ ...refServer, tokens: [] } as unknown as Vault)).rps);
    }
    best[op] = b;
  }
  // UserGet's p50 at one connection, A B A B with the reference beside each pair: the lower of two each.
  const lat = { before: Infinity, after: Infinity, ref: Infinity };
  for (let round = 0; round < 2; round++) {
    lat.before = Math.min(lat.before, await p50(before));
    lat.after = Math.min(lat.after, await p50(after));
    lat.ref = Math.min(lat.ref, await p50(refServer));
  }
  console.log(custody ? 'before = static custody, after = pkcs11 custody (SoftHSM2), both this tree; req/s at 16 connections, the better of two rounds each' : `before = ${ref}, after = this tree; req/s at 16 connections, the better of two rounds each`);
  for (const [op, b] of Object.entries(best)) {
    const vsRef = b.ref ? `; vs reference ${((b.before / b.ref) * 100).toFixed(0)}% → ${((b.after / b.ref) * 100).toFixed(0)}% (ref ${Math.round(b.ref)})` : '';
    console.log(`${op}: ${Math.round(b.before)} → ${Math.round(b.after)} req/s, after/before ${(b.after / b.before).toFixed(3)}${vsRef}`);
    if (b.cpuBefore && b.cpuAfter) console.log(`  CPU per call ${cpuText(b.cpuBefore)} → ${cpuText(b.cpuAfter)}, after/before ${(cpuTotal(b.cpuAfter) / cpuTotal(b.cpuBefore)).toFixed(3)}`);
  }
  const x = (ms: number) => `${ms.toFixed(2)} ms (${(ms / lat.ref).toFixed(2)}× the reference's ${lat.ref.toFixed(2)})`;
  console.log(`UserGet p50 at one connection: ${x(lat.before)} → ${x(lat.after)}`);
} finally {
  await before.stop();
  await after.stop();
  await reference.stop();
  hsm?.remove();
  for (const drop of drops) await drop();
}
