// Per-person keys, measured: UserGet and UserUpdate at 16 connections on the code before per-person keys
// (BENCH_BASELINE_REF, default the commit this branch started from) and on this tree, in the same run,
// alternating A/B/A/B to even out a busy machine; then the rotation rate in persons per second while serving.
// Run: `npx tsx test/bench/person-keys.ts` (PostgreSQL as in run.ts; BENCH_QUICK=1 for 3 s windows).
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineTree, post, startVault, type Vault } from './baseline.js';
import { CONNECTIONS, hammer } from './load.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = QUICK ? 3 : 10;
const PEOPLE = QUICK ? 2000 : 5000;
const ROTATION_PEOPLE = QUICK ? 10_000 : 40_000;
const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? '1e78217';
const here = resolve(fileURLToPath(new URL('../..', import.meta.url)));

async function people(v: Vault, n: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < n; i += 1000) {
    const records = Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({
      profile: { email: `p${i + k}-${randomUUID().slice(0, 6)}@bench.example`, name: 'Bench Person', plan: 'basic' },
    }));
    const res = await post(v, 'UserCreateBulk', { records });
    tokens.push(...(res.created as { token: string }[]).map((c) => c.token));
  }
  return tokens;
}

async function measure(root: string) {
  const v = await startVault(root);
  try {
    const tokens = await people(v, PEOPLE);
    const headers = { 'x-bunker-token': v.token };
    // Warm-up: the first few hundred calls of a fresh process run unoptimised.
    await hammer(v.base, headers, 'UserGet', 2, (i) => ({ mode: 'token', identity: tokens[i % tokens.length] }));
    const get = await hammer(v.base, headers, 'UserGet', SECONDS, (i) => ({ mode: 'token', identity: tokens[i % tokens.length] }));
    const update = await hammer(v.base, headers, 'UserUpdate', SECONDS, (i) => ({ mode: 'token', identity: tokens[i % tokens.length], profile: { visits: i } }));
    if (get.errors || update.errors) throw new Error(`errors under load: UserGet ${get.errors}, UserUpdate ${update.errors}`);
    return { get, update };
  } finally {
    await v.stop();
  }
}

async function rotationRate(): Promise<{ persons: number; seconds: number; servedRps: number }> {
  const v = await startVault(here, { STRONGROOM_REWRAP_SECONDS: '0' });
  try {
    const tokens = await people(v, ROTATION_PEOPLE);
    const headers = { 'x-bunker-token': v.token };
    const started = performance.now();
    await post(v, 'SystemRotateMasterKey', {});
    let seconds = 0;
    // Serve reads all through, and poll the progress between windows.
    let served = 0;
    let windows = 0;
    for (;;) {
      const load = await hammer(v.base, headers, 'UserGet', 1, (i) => ({ mode: 'token', identity: tokens[i % tokens.length] }));
      if (load.errors) throw new Error(`errors while rotating: ${load.errors}`);
      served += load.rps;
      windows++;
      const status = await post(v, 'SystemGetKeyringStatus', {});
      if (status.rotation.percent === 100) {
        seconds = (performance.now() - started) / 1000;
        break;
      }
      if (performance.now() - started > 600_000) throw new Error('rotation did not finish in 10 minutes');
    }
    return { persons: tokens.length, seconds, servedRps: served / windows };
  } finally {
    await v.stop();
  }
}

const baseline = baselineTree(BASELINE_REF);
const runs: { before: Awaited<ReturnType<typeof measure>>[]; after: Awaited<ReturnType<typeof measure>>[] } = { before: [], after: [] };
for (let round = 0; round < 2; round++) {
  runs.before.push(await measure(baseline));
  runs.after.push(await measure(here));
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const row = (label: string, pick: (m: Awaited<ReturnType<typeof measure>>) => number) => {
  const b = mean(runs.before.map(pick));
  const a = mean(runs.after.map(pick));
  return { label, before: Math.round(b), after: Math.round(a), ratio: (a / b).toFixed(3) };
};
console.table([
  row(`UserGet by token, req/s (${CONNECTIONS} conns)`, (m) => m.get.rps),
  row(`UserUpdate, req/s (${CONNECTIONS} conns)`, (m) => m.update.rps),
  row('UserGet p99, ms', (m) => m.get.p99),
  row('UserUpdate p99, ms', (m) => m.update.p99),
]);
const rot = await rotationRate();
console.log(
  `rotation: ${rot.persons} persons rewrapped in ${rot.seconds.toFixed(1)} s = ${Math.round(rot.persons / rot.seconds)} persons/s, ` +
    `while serving UserGet at ${Math.round(rot.servedRps)} req/s (${CONNECTIONS} conns)`,
);
