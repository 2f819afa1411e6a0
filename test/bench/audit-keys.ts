// The keyed audit chain, measured: UserGet by token at 16 connections (one audit event per call, batched) on this
// tree with unkeyed links (unkeyed-links.ts; or the code of BENCH_BASELINE_REF) and on this tree, alternating
// A/B/A/B in the same run; then the
// speed of `npm run audit:verify` (no key: digests and checkpoints) and of AuditVerify (every link, through the
// tokenizer) on a trail of 100,000 events (20,000 with BENCH_QUICK=1).
// Run: `npx tsx test/bench/audit-keys.ts` (PostgreSQL as in run.ts; BENCH_QUICK=1 for 3 s windows,
// BENCH_SKIP_VERIFY=1 for the A/B rows alone).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { baselineTree, people, post, startVault } from './baseline.js';
import { CONNECTIONS, hammer } from './load.js';
import { readCheckpoints, verifyTrail } from '../../api/audit-verify.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = QUICK ? 3 : 10;
const PEOPLE = 2000;
const EVENTS = QUICK ? 20_000 : 100_000;
const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? 'c21ccb3';
const here = resolve(fileURLToPath(new URL('../..', import.meta.url)));

async function userGet(root: string, preload?: string) {
  const v = await startVault(root, {}, preload);
  try {
    const tokens = await people(v, PEOPLE);
    const headers = { 'x-bunker-token': v.token };
    await hammer(v.base, headers, 'UserGet', 2, (i) => ({ mode: 'token', identity: tokens[i % tokens.length] }));
    const get = await hammer(v.base, headers, 'UserGet', SECONDS, (i) => ({ mode: 'token', identity: tokens[i % tokens.length] }));
    if (get.errors) throw new Error(`errors under load: ${get.errors}`);
    return get;
  } finally {
    await v.stop();
  }
}

async function verification() {
  const dir = mkdtempSync(join(tmpdir(), 'sr-ab-cp-'));
  const v = await startVault(here, { STRONGROOM_AUDIT_CHECKPOINT_DIR: dir, STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0' });
  const c = new pg.Client({ connectionString: v.url });
  try {
    const tokens = await people(v, PEOPLE);
    const headers = { 'x-bunker-token': v.token };
    const count = async () => Number((await c.query('select max(seq) as n from tenant_1.audit_events')).rows[0].n);
    await c.connect();
    while ((await count()) < EVENTS) await hammer(v.base, headers, 'UserGet', 5, (i) => ({ mode: 'token', identity: tokens[i % tokens.length] }));
    // Checkpoints were signed every 10,000 events on the way (STRONGROOM_AUDIT_CHECKPOINT_EVENTS).
    const pem = (await post(v, 'SystemGetKeyringStatus', {})).auditpublickey as string;
    let started = performance.now();
    const report = await verifyTrail(async (sql, params) => (await c.query(sql, params)).rows as Record<string, unknown>[], 1, readCheckpoints(dir), pem);
    const command = (performance.now() - started) / 1000;
    started = performance.now();
    const verdict = await post(v, 'AuditVerify', {});
    const op = (performance.now() - started) / 1000;
    return { events: report.events, command, op, report, verdict };
  } finally {
    await c.end();
    await v.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Keying alone: this tree with the chainer's links made by plain SHA-256 in the api (unkeyed-links.ts, same
// batches and statements, no link items for the tokenizer) against this tree as it is. BENCH_BASELINE_REF=<ref>
// instead compares an earlier commit's vault (the chain before keyed links, c21ccb3) against this tree.
const unkeyed = fileURLToPath(new URL('./unkeyed-links.ts', import.meta.url));
const against = process.env.BENCH_BASELINE_REF ? { name: BASELINE_REF, root: baselineTree(BASELINE_REF), preload: undefined } : { name: 'this tree, unkeyed links', root: here, preload: unkeyed };
const runs: { before: number[]; after: number[]; beforeP99: number[]; afterP99: number[] } = { before: [], after: [], beforeP99: [], afterP99: [] };
for (let round = 0; round < 2; round++) {
  const b = await userGet(against.root, against.preload);
  const a = await userGet(here);
  runs.before.push(b.rps);
  runs.beforeP99.push(b.p99);
  runs.after.push(a.rps);
  runs.afterP99.push(a.p99);
}
const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
console.log(`before: ${against.name}; after: this tree (keyed links)`);
console.table([
  { label: `UserGet by token, req/s (${CONNECTIONS} conns)`, before: Math.round(mean(runs.before)), after: Math.round(mean(runs.after)), ratio: (mean(runs.after) / mean(runs.before)).toFixed(3) },
  { label: 'UserGet p99, ms', before: mean(runs.beforeP99), after: mean(runs.afterP99), ratio: (mean(runs.afterP99) / mean(runs.beforeP99)).toFixed(3) },
]);
console.log(`rounds: before ${runs.before.map(Math.round).join(', ')}; after ${runs.after.map(Math.round).join(', ')} req/s`);
// BENCH_SKIP_VERIFY=1: the A/B rows only.
const ver = process.env.BENCH_SKIP_VERIFY === '1' ? undefined : await verification();
if (ver) console.log(
  `audit:verify: ${ver.events} events in ${ver.command.toFixed(2)} s = ${Math.round(ver.events / ver.command)} events/s (${ver.report.result}, proven up to ${ver.report.provenUpTo}); ` +
    `AuditVerify: ${ver.verdict.checked.to} events in ${ver.op.toFixed(2)} s = ${Math.round(ver.verdict.checked.to / ver.op)} events/s (${ver.verdict.result})`,
);
