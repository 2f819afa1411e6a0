// `npm run bench`: UserCreateBulk, UserGet latency and throughput against real PostgreSQL, beside the raw
// multi-row INSERT limit of the same machine. A measurement, not a test: it exits 0 when targets are missed.
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startSupervisor, type Supervised } from '../fixtures/processes.js';
import { benchProfile } from './profiles.js';
import { percentile, printTable, type Row } from './stats.js';
import { measureFf1 } from './ff1.js';
import { measureSubjects } from './subjects.js';
import { measureFiles } from './files.js';
import { EVENTS_BENCH_ENV, measureEvents } from './events.js';
import { measureAuditSinks } from './audit-sinks.js';
import { measureTraces } from './traces.js';
import { measureCpu } from './cpu.js';
import { measureAccess } from './access.js';
import { measureEdge } from './edge.js';
import { startReference, type Reference } from './references.js';
import { hammer } from './load.js';
import { benchDatabase } from './database.js';
import { BATCH, bulkBodies, mainAdminToken, measureBulk, postOp, rawInsertLimit } from './bulk.js';

const QUICK = process.env.BENCH_QUICK === '1';
const BATCHES = QUICK ? 4 : 20;
const LATENCY_REQUESTS = QUICK ? 300 : 2000;
const LOAD_SECONDS = QUICK ? 3 : 10;
const TOKEN_BATCH = 10_000;
const TOKEN_BATCHES = QUICK ? 2 : 6;
// A fresh process runs its hot path unoptimised for its first few hundred calls.
const WARMUP = 500;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function post(base: string, token: string, op: string, body: unknown): Promise<{ status: number; body: any }> {
  return postWith(base, token, op, body);
}

function postWith(base: string, token: string, op: string, body: unknown, extra: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return postOp(agent, base, token, op, body, extra);
}

function fail(msg: string, vault?: Supervised): never {
  console.error(msg);
  if (vault) console.error(vault.output().slice(-3000));
  // The vault is a process of its own: left running, it would load the machine under the next run's figures (SIGTERM:
  // the supervisor stops the api and the tokenizer with it).
  vault?.child.kill('SIGTERM');
  process.exit(1);
}

/** A read operation and how to name one of `ids` in its body. */
interface Read {
  op: string;
  body(id: string): unknown;
}

const userGet = (mode: string): Read => ({ op: 'UserGet', body: (identity) => ({ mode, identity }) });
const tokenGet: Read = { op: 'TokenGet', body: (token) => ({ token }) };

async function latency(base: string, token: string, read: Read, ids: string[], requests = LATENCY_REQUESTS) {
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const id = ids[Math.floor(Math.random() * ids.length)]!;
    const t = performance.now();
    const res = await post(base, token, read.op, read.body(id));
    if (res.status !== 200) fail(`${read.op} failed: ${res.status} ${JSON.stringify(res.body)}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** The better of two rounds, the reference's and the vault's interleaved (ref, vault, ref, vault). */
async function interleaved<T>(ref: () => Promise<T>, vault: () => Promise<T>, better: (a: T, b: T) => T): Promise<{ ref: T; vault: T }> {
  // Two rounds, each server measured right after the other, so drift of the machine's speed hits both alike.
  const r1: T = await ref();
  const v1: T = await vault();
  const r2: T = await ref();
  const v2: T = await vault();
  return { ref: better(r1, r2), vault: better(v1, v2) };
}

const fasterRps = <T extends { rps: number }>(a: T, b: T) => (a.rps >= b.rps ? a : b);

async function load(base: string, token: string, read: Read, ids: string[]) {
  let n = 0;
  const result = await autocannon({
    url: base,
    connections: 16,
    duration: LOAD_SECONDS,
    requests: [
      {
        method: 'POST',
        path: `/v2/${read.op}`,
        headers: { 'content-type': 'application/json', 'x-bunker-token': token },
        setupRequest: (req: any) => ({ ...req, body: JSON.stringify(read.body(ids[n++ % ids.length]!)) }),
      },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
}

/** An xtoken for a role whose policy has three statements, the way a real deployment writes them. */
async function policyXtoken(base: string, token: string): Promise<string> {
  const ok = (res: { status: number; body: any }) => {
    if (res.status !== 200) fail(`policy set-up failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  ok(await post(base, token, 'RoleCreate', { rolename: 'bench-reader' }));
  ok(
    await post(base, token, 'PolicyCreate', {
      policyname: 'bench-read',
      policy: [
        { Effect: 'Allow', Principal: { Role: 'bench-reader' }, Action: ['UserGet', 'BulkListUsers'], Resource: ['users.profile.*'] },
        { Effect: 'Allow', Principal: { Role: 'bench-reader' }, Action: ['AuditListUserEvents'], Condition: { Bool: { '${request_metadata:audit}': true } } },
        { Effect: 'Deny', Principal: { Role: 'bench-reader' }, Action: ['UserDelete', 'UserUpdate', 'UserPatch'] },
      ],
    }),
  );
  ok(await post(base, token, 'RoleLinkPolicy', { rolename: 'bench-reader', policyname: 'bench-read' }));
  return ok(await post(base, token, 'XTokenCreateForRole', { rolename: 'bench-reader', finaltime: '1h' })).xtoken as string;
}

/** A random 16-digit card number with a valid Luhn check digit. */
function cardNumber(): string {
  const body = Array.from({ length: 15 }, (_, i) => (i === 0 ? 4 : Math.floor(Math.random() * 10)));
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    let d = body[14 - i]!;
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return body.join('') + String((10 - (sum % 10)) % 10);
}

/** TokenCreateBulk of TOKEN_BATCH cards per request; returns tokens/s and the tokenbases made. */
async function tokenBulk(base: string, token: string) {
  const bases: string[] = [];
  const started = performance.now();
  for (let b = 0; b < TOKEN_BATCHES; b++) {
    const records = Array.from({ length: TOKEN_BATCH }, () => ({ tokentype: 'creditcard', record: cardNumber() }));
    const res = await post(base, token, 'TokenCreateBulk', { records });
    if (res.status !== 200 || res.body.created?.length !== TOKEN_BATCH) fail(`TokenCreateBulk failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    for (const c of res.body.created as { tokenbase: string }[]) bases.push(c.tokenbase);
  }
  return { perSecond: (TOKEN_BATCHES * TOKEN_BATCH) / ((performance.now() - started) / 1000), bases };
}

async function main() {
  const { url, drop } = await benchDatabase('bench');
  const dataDir = mkdtempSync(join(tmpdir(), 'srb-'));
  const rootToken = randomUUID();
  let vault: Supervised | undefined;
  let ref: Reference | undefined;
  try {
    console.log(`bulk reference: multi-row INSERT of ${BATCHES} × ${BATCH} rows of ~5.7 KB through pg…`);
    const raw1 = await rawInsertLimit(url, 'raw_bench1', BATCHES);

    // The compiled build, as `npm run start:prod` and the container run it (`npm run bench` builds first).
    // BENCH_CPU_PROF=<dir>: the supervisor, the api and the tokenizer each write a CPU profile there when they stop.
    const profiling = process.env.BENCH_CPU_PROF ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` } : {};
    // The role xtoken's rows measure the policy engine at thousands of calls a second: the per-credential budget (6,000
    // a minute by default) would answer them 429, so it is off here.
    const unbudgeted = { STRONGROOM_CALLS_PER_CREDENTIAL: '0' };
    vault = await startSupervisor(
      { DATABASE_URL: url, STRONGROOM_DATA_DIR: dataDir, STRONGROOM_ROOT_TOKEN: rootToken, STRONGROOM_LOG_LEVEL: 'warn', ...unbudgeted, ...EVENTS_BENCH_ENV, ...profiling },
      { built: true },
    );
    await vault.waitReady();
    const base = vault.url;
    const run = randomBytes(3).toString('hex');
    // Seven-digit numbers: every profile is the same ~5.6 KB and its phone number is unique.
    const FIRST = 1_000_000;
    console.log(`profile size: ${JSON.stringify(benchProfile(FIRST, run)).length} bytes of JSON, 120 fields`);

    console.log('UserCreateBulk, one request at a time…');
    const seq = await measureBulk(base, [rootToken], bulkBodies(run, FIRST, BATCHES));
    console.log('UserCreateBulk, two requests in flight (root and a tenant admin of the main tenant: a credential has one large body in flight)…');
    const par = await measureBulk(base, [rootToken, await mainAdminToken(base, rootToken)], bulkBodies(run, FIRST + BATCHES * BATCH, BATCHES));
    console.log('bulk reference, second round…');
    const raw = Math.max(raw1, await rawInsertLimit(url, 'raw_bench2', BATCHES));
    const emails = [...seq.emails, ...par.emails];
    const tokens = [...seq.tokens, ...par.tokens];

    // The read and write references: their own process and schema, the same profiles, the same load generator.
    console.log('starting the reference server and filling it with the same profiles…');
    ref = await startReference(url, 'ref_bench');
    await ref.seed(Array.from({ length: 2 * BATCHES * BATCH }, (_, i) => benchProfile(FIRST + i, run)));
    const refUrl = ref.url;

    console.log('UserGet latency at 1 connection, interleaved with the reference…');
    // Every server warms before anything is measured, so none pays for its first calls in a measured window.
    await latency(base, rootToken, userGet('email'), emails, WARMUP);
    await latency(base, rootToken, userGet('token'), tokens, WARMUP);
    await latency(refUrl, rootToken, userGet('email'), emails, WARMUP);
    const lower = <T extends { p50: number }>(a: T, b: T) => (a.p50 <= b.p50 ? a : b);
    const latencies = await interleaved(
      () => latency(refUrl, rootToken, userGet('email'), emails),
      () => latency(base, rootToken, userGet('email'), emails),
      lower,
    );
    const byEmail = latencies.vault;
    const byToken = await latency(base, rootToken, userGet('token'), tokens);
    console.log(`UserGet throughput at 16 connections (${LOAD_SECONDS} s each), interleaved with the reference…`);
    const loads = await interleaved(
      () => load(refUrl, rootToken, userGet('email'), emails),
      () => load(base, rootToken, userGet('email'), emails),
      fasterRps,
    );
    const loadEmail = loads.vault;
    const loadToken = await load(base, rootToken, userGet('token'), tokens);
    if (loadEmail.non2xx || loadToken.non2xx || loads.ref.non2xx) fail(`UserGet under load answered ${loadEmail.non2xx + loadToken.non2xx} errors (reference ${loads.ref.non2xx})`, vault);

    console.log(`UserUpdate (small merge) at 16 connections, interleaved with the write reference…`);
    const update = (url: string) => () =>
      hammer(url, { 'x-bunker-token': rootToken }, 'UserUpdate', LOAD_SECONDS, (i) => ({
        mode: 'email',
        identity: emails[(i * 7919) % emails.length],
        profile: { visits: i, last: `page-${i % 97}` },
      }));
    // Warm-up of both write paths.
    await update(refUrl)();
    await update(base)();
    const updates = await interleaved(update(refUrl), update(base), fasterRps);
    if (updates.vault.errors || updates.ref.errors) fail(`UserUpdate under load answered ${updates.vault.errors} errors (reference ${updates.ref.errors})`, vault);
    await ref.stop();
    ref = undefined;

    console.log('UserGet through a role xtoken with a three-statement policy, interleaved with the root token (16 conns)…');
    const xtoken = await policyXtoken(base, rootToken);
    // Root and role measured A B A B (one sample each swung this row by ±30% on a busy machine).
    const policy = await interleaved(
      () => load(base, rootToken, userGet('token'), tokens),
      () => load(base, xtoken, userGet('token'), tokens),
      fasterRps,
    );
    const loadRole = policy.vault;
    if (loadRole.non2xx) fail(`UserGet through the role xtoken answered ${loadRole.non2xx} errors`, vault);

    console.log('The edge: UserGet beside a second vault with the rate limits off (same database, interleaved)…');
    const edgeDir = mkdtempSync(join(tmpdir(), 'srb-'));
    // One vault in two processes: the second gets the first's keyring and its development wrapping key.
    cpSync(join(dataDir, 'tokenizer'), join(edgeDir, 'tokenizer'), { recursive: true });
    const unlimited = await startSupervisor(
      {
        DATABASE_URL: url,
        STRONGROOM_DATA_DIR: edgeDir,
        STRONGROOM_ROOT_TOKEN: rootToken,
        STRONGROOM_LOG_LEVEL: 'warn',
        STRONGROOM_AUTH_FAILURES_PER_ADDRESS: '0',
        STRONGROOM_LOGIN_RATE_PER_ADDRESS: '0',
        STRONGROOM_LOGIN_RATE_PER_TENANT: '0',
      },
      { built: true },
    );
    let edge: Row[];
    try {
      await unlimited.waitReady();
      edge = await measureEdge(base, unlimited.url, rootToken, tokens, LOAD_SECONDS);
    } finally {
      await unlimited.stop();
      rmSync(edgeDir, { recursive: true, force: true });
    }

    console.log('The admission gate: a role judged per person beside the root token, UserGet and BulkListAllUsers…');
    const access = await measureAccess(base, rootToken, (op, body, headers) => postWith(base, rootToken, op, body, headers), LOAD_SECONDS);

    console.log(`FF1 inside the tokenizer (16-digit cards)…`);
    const ff1 = await measureFf1();
    console.log(`TokenCreateBulk, ${TOKEN_BATCHES} × ${TOKEN_BATCH} cards…`);
    const cards = await tokenBulk(base, rootToken);
    console.log('TokenGet latency at 1 connection, throughput at 16…');
    await latency(base, rootToken, tokenGet, cards.bases, WARMUP);
    const tokenLatency = await latency(base, rootToken, tokenGet, cards.bases);
    const tokenLoad = await load(base, rootToken, tokenGet, cards.bases);
    if (tokenLoad.non2xx) fail(`TokenGet under load answered ${tokenLoad.non2xx} errors`, vault);

    console.log(`AppdataUpdate, AgreementAccept and SessionUpsert at 16 connections (${LOAD_SECONDS} s each)…`);
    const subjects = await measureSubjects(base, rootToken, (op, body) => post(base, rootToken, op, body), tokens, LOAD_SECONDS, updates.ref.rps);
    console.log('FileCreate and FileGet of 1 MiB files, one at a time…');
    const files = await measureFiles(base, rootToken, tokens, QUICK);
    console.log(`Privacy events: UserUpdate with two subscriptions beside none (${LOAD_SECONDS} s each), delivery rates…`);
    const events = await measureEvents(base, rootToken, (op, body, headers) => postWith(base, rootToken, op, body, headers), LOAD_SECONDS);
    console.log(`Audit sinks: UserGet and UserUpdate with a syslog and a collector sink beside none (two vaults, ${LOAD_SECONDS} s each)…`);
    const auditSinks = await measureAuditSinks(LOAD_SECONDS);
    console.log(`Traces: UserGet traced at 10 % sampling beside tracing off (two vaults, ${LOAD_SECONDS} s each)…`);
    const traces = await measureTraces(LOAD_SECONDS);
    console.log(`CPU per call by process: UserGet and UserUpdate beside the references, UserCreateBulk (a vault of its own, ${LOAD_SECONDS} s each)…`);
    await vault.stop();
    vault = undefined;
    const cpu = await measureCpu(LOAD_SECONDS);
    console.log(cpu.lines.join('\n'));

    const best = Math.max(seq.perSecond, par.perSecond);
    const rows: Row[] = [
      { metric: 'bulk ref: raw multi-row INSERT (pg)', value: raw, unit: 'rows/s' },
      { metric: 'UserCreateBulk, 1 in flight', value: seq.perSecond, unit: 'records/s' },
      { metric: 'UserCreateBulk, 2 in flight', value: par.perSecond, unit: 'records/s', target: { op: '>=', value: 5000 } },
      { metric: 'UserCreateBulk / bulk ref', value: (best / raw) * 100, unit: '%', target: { op: '>=', value: 50 } },
      { metric: 'read ref: UserGet by email (16 conns)', value: loads.ref.rps, unit: 'req/s' },
      { metric: 'UserGet by email (16) / read ref', value: (loadEmail.rps / loads.ref.rps) * 100, unit: '%', target: { op: '>=', value: 80 } },
      { metric: 'read ref: p50 by email (1 conn)', value: latencies.ref.p50, unit: 'ms' },
      { metric: 'UserGet p50 (1 conn) / read ref', value: byEmail.p50 / latencies.ref.p50, unit: '×', target: { op: '<=', value: 1.5 } },
      { metric: 'write ref: UserUpdate (16 conns)', value: updates.ref.rps, unit: 'req/s' },
      { metric: 'UserUpdate by email (16 conns)', value: updates.vault.rps, unit: 'req/s' },
      { metric: 'UserUpdate p50/p99 (16)', value: updates.vault.p50, unit: `ms / ${updates.vault.p99} ms` },
      { metric: 'UserUpdate (16) / write ref', value: (updates.vault.rps / updates.ref.rps) * 100, unit: '%', target: { op: '>=', value: 60 } },
      { metric: 'UserGet by email p50 (1 conn)', value: byEmail.p50, unit: 'ms', target: { op: '<=', value: 2 } },
      { metric: 'UserGet by email p99 (1 conn)', value: byEmail.p99, unit: 'ms' },
      { metric: 'UserGet by token p50 (1 conn)', value: byToken.p50, unit: 'ms', target: { op: '<=', value: 2 } },
      { metric: 'UserGet by token p99 (1 conn)', value: byToken.p99, unit: 'ms' },
      { metric: 'UserGet by email (16 conns)', value: loadEmail.rps, unit: 'req/s', target: { op: '>=', value: 3000 } },
      { metric: 'UserGet by email p50/p99 (16)', value: loadEmail.p50, unit: `ms / ${loadEmail.p99} ms` },
      { metric: 'UserGet by token (16 conns)', value: loadToken.rps, unit: 'req/s', target: { op: '>=', value: 3000 } },
      { metric: 'UserGet by token p50/p99 (16)', value: loadToken.p50, unit: `ms / ${loadToken.p99} ms` },
      { metric: 'UserGet by token, role xtoken (16)', value: loadRole.rps, unit: 'req/s' },
      { metric: 'UserGet by token, root beside it (16)', value: policy.ref.rps, unit: 'req/s' },
      { metric: 'policy engine cost vs root token', value: (1 - loadRole.rps / policy.ref.rps) * 100, unit: '%', target: { op: '<=', value: 20 } },
      { metric: 'FF1 in the tokenizer (batched)', value: ff1.opsPerSecond, unit: 'ops/s', target: { op: '>=', value: 100_000 } },
      { metric: 'FF1 in the tokenizer (one by one)', value: ff1.singleOpsPerSecond, unit: 'ops/s' },
      { metric: `TokenCreateBulk (${TOKEN_BATCH} cards)`, value: cards.perSecond, unit: 'tokens/s', target: { op: '>=', value: 20_000 } },
      { metric: 'TokenCreateBulk / FF1 batched', value: (cards.perSecond / ff1.opsPerSecond) * 100, unit: '%' },
      { metric: 'TokenGet by tokenbase p50 (1 conn)', value: tokenLatency.p50, unit: 'ms', target: { op: '<=', value: 2 } },
      { metric: 'TokenGet by tokenbase p99 (1 conn)', value: tokenLatency.p99, unit: 'ms' },
      { metric: 'TokenGet (16 conns)', value: tokenLoad.rps, unit: 'req/s' },
      { metric: 'TokenGet p50/p99 (16)', value: tokenLoad.p50, unit: `ms / ${tokenLoad.p99} ms` },
      ...edge,
      ...access,
      ...subjects,
      ...files,
      ...events,
      ...auditSinks,
      ...traces,
      ...cpu.rows,
    ];
    console.log('');
    printTable(rows);
    const out = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'latest.json'), JSON.stringify({ when: new Date().toISOString(), quick: QUICK, rows }, null, 2));
  } finally {
    agent.destroy();
    await ref?.stop();
    await vault?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await drop();
  }
}

main().catch((err: unknown) => fail(`benchmark failed: ${(err as Error).stack ?? String(err)}`));
