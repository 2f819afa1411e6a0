// CPU profiles of the api and the tokenizer under one operation's load: `npx tsx test/bench/profile.ts UserUpdate`
// (after `npm run build`; UserGet and UserCreateBulk also work) starts the compiled vault with --cpu-prof, makes
// 4,000 people, loads the operation at 16 connections by email (UserCreateBulk: batches of 1,000 new people, one in
// flight, a call counted per record) for 10 s after a warm-up, stops the vault and prints the heaviest functions of
// each process by self time. The .cpuprofile files stay in the printed directory (open them in
// Chrome's DevTools or speedscope).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSupervisor } from '../fixtures/processes.js';
import { benchProfile } from './profiles.js';
import { hammer } from './load.js';
import { benchDatabase } from './database.js';

const op = process.argv[2] ?? 'UserUpdate';
const PEOPLE = 4000;

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** Where the samples of `fn` come from: its callers' chains (up to 6 frames), by self time. */
function callersOf(profile: CpuProfile, fn: string, top = 3): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const chains = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    if (byId.get(id)!.callFrame.functionName !== fn) return;
    const chain: string[] = [];
    for (let p = parent.get(id); p !== undefined && chain.length < 6; p = parent.get(p)) {
      const f = byId.get(p)!.callFrame;
      chain.push(`${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}`);
    }
    const key = chain.join(' < ');
    chains.set(key, (chains.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return [...chains].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, us]) => `    ${(us / 1000).toFixed(0)} ms  ${k}`);
}

// What a sample is spent on: the category of the nearest frame (from the leaf up) that names one.
const CATEGORIES: [string, RegExp][] = [
  ['garbage collector', /^\(garbage collector\)/],
  ['pg: socket writes', /^writev .*|^writeBuffer .*/],
  ['pg driver', /node_modules\/(pg|pg-protocol|pg-pool|pg-types)\//],
  ['MikroORM / kysely', /node_modules\/(@mikro-orm|kysely)\//],
  ['gRPC client / http2', /node_modules\/@grpc\/|node:internal\/http2/],
  ['zod', /node_modules\/zod\//],
  ['koa / koa-body / http', /node_modules\/(koa|@koa|koa-body|co-body|raw-body|@hapi)|node:_http|node:internal\/http/],
  ['prom-client / pino', /node_modules\/(prom-client|pino)/],
  ['async hooks (AsyncLocalStorage)', /node:internal\/async_hooks|node:async_hooks|async_local_storage/],
  ['json-merge-patch', /json-merge-patch/],
  ['node:crypto', /node:internal\/crypto/],
  ['api: audit', /dist\/api\/(vault|store)\/audit/],
  ['api: http, ops, admission', /dist\/api\/(http|ops)\//],
  ['api: vault, store', /dist\/api\/(vault|store)\//],
  ['api: other', /dist\/api\//],
  ['tokenizer', /dist\/(tokenizer|proto)\//],
];

/** Busy time by category (nearest categorised frame from the leaf), in ms per call. */
function byCategory(profile: CpuProfile, calls: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (f: Node['callFrame']) => `${f.functionName} ${f.url}`;
  const totals = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const leaf = byId.get(id)!.callFrame;
    if (leaf.functionName === '(idle)' || leaf.functionName === '(program)') return;
    const dt = profile.timeDeltas[i] ?? 0;
    busy += dt;
    let category = 'other (node internals, startup)';
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const hit = CATEGORIES.find(([, re]) => re.test(label(byId.get(n)!.callFrame)));
      if (hit) {
        category = hit[0];
        break;
      }
    }
    totals.set(category, (totals.get(category) ?? 0) + dt);
  });
  const perCall = (us: number) => (us / 1000 / calls).toFixed(3);
  return [`  busy ${perCall(busy)} ms per call`, ...[...totals].sort((a, b) => b[1] - a[1]).map(([c, us]) => `  ${perCall(us).padStart(7)} ms  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${c}`)];
}

/** Self time per function (name, file, line), as a share of the samples taken while not idle. */
function heaviest(profile: CpuProfile, top = 25): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)') return;
    const at = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(at, (self.get(at) ?? 0) + dt);
    busy += dt;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([at, us]) => `${((us / busy) * 100).toFixed(1).padStart(5)}%  ${at}`);
}

const { url, drop } = await benchDatabase('prof');
const dataDir = mkdtempSync(join(tmpdir(), 'srp-'));
const profDir = mkdtempSync(join(tmpdir(), 'srp-prof-'));
const root = randomUUID();
const env = { DATABASE_URL: url, STRONGROOM_DATA_DIR: dataDir, STRONGROOM_ROOT_TOKEN: root, STRONGROOM_LOG_LEVEL: 'warn' };
// The people are made by a vault without profiling; the profiled one (same database and keyring) only serves the load.
const emails: string[] = [];
let calls = 1;
let vault = await startSupervisor(env, { built: true });
const run = randomBytes(3).toString('hex');
try {
  await vault.waitReady();
  for (let b = 0; b < PEOPLE / 1000; b++) {
    const records = Array.from({ length: 1000 }, (_, i) => ({ profile: benchProfile(1_000_000 + b * 1000 + i, run) }));
    const res = await fetch(`${vault.url}/v2/UserCreateBulk`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-token': root }, body: JSON.stringify({ records }) });
    if (res.status !== 200) throw new Error(`UserCreateBulk: ${res.status}`);
    emails.push(...records.map((r) => r.profile.email as string));
  }
  await vault.stop();
  vault = await startSupervisor({ ...env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profDir}` }, { built: true });
  await vault.waitReady();
  // UserCreateBulk: batches of 1,000 new people, one in flight; a call is one record.
  const bulk = op === 'UserCreateBulk';
  // Each run numbers its requests from 0: the measured run's people are numbered after the warm-up's, or every
  // batch would be refused as duplicates.
  const body = (from: number) => (i: number) =>
    bulk
      ? { records: Array.from({ length: 1000 }, (_, j) => ({ profile: benchProfile(from + i * 1000 + j, run) })) }
      : op === 'UserUpdate'
        ? { mode: 'email', identity: emails[i % emails.length], profile: { visits: i } }
        : { mode: 'email', identity: emails[i % emails.length] };
  // One credential may have one large body in flight (STRONGROOM_LARGE_BODIES): bulk requests go one at a time.
  const connections = bulk ? 1 : 16;
  const warm = await hammer(vault.url, { 'x-bunker-token': root }, op, 3, body(2_000_000), connections);
  const result = await hammer(vault.url, { 'x-bunker-token': root }, op, 10, body(3_000_000), connections);
  console.log(`${op} at ${connections} connections: ${Math.round(result.rps)} req/s, ${result.errors} errors`);
  calls = (result.rps * 10 + warm.rps * 3) * (bulk ? 1000 : 1);
} finally {
  await vault.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await drop();
}
// The api's profile is the one whose frames reach koa; the tokenizer's, the one reaching its batch code.
for (const f of readdirSync(profDir)) {
  const text = readFileSync(join(profDir, f), 'utf8');
  const kind = text.includes('koa') ? 'api' : text.includes('tokenizer/batch') ? 'tokenizer' : 'supervisor';
  if (kind === 'supervisor') continue;
  console.log(`\n${kind} (${f}), self time of the busiest functions:`);
  const profile = JSON.parse(text) as CpuProfile;
  console.log(`  by category (${Math.round(calls)} calls, startup included):`);
  for (const line of byCategory(profile, calls)) console.log(line);
  for (const line of heaviest(profile)) console.log(line);
  console.log('  writev called from:');
  for (const line of callersOf(profile, 'writev')) console.log(line);
}
console.log(`\nprofiles in ${profDir}`);
