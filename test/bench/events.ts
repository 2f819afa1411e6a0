// Privacy events under load, in one run: UserUpdate on a tenant with two subscriptions (a webhook and a JetStream
// subject, both delivering) beside a tenant with none (target: within 5 %); and the dispatcher's delivery rate,
// outbox to receiver, for 20,000 events to a local webhook (target 2,000/s) and to JetStream (target 5,000/s).
// Part of `npm run bench`; alone: `npm run build && npx tsx test/bench/events.ts`.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { hammer } from './load.js';
import { benchProfile } from './profiles.js';
import type { Row } from './stats.js';

type Post = (op: string, body: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;

const EVENTS = 20_000;
const PEOPLE = 1_000;

/** The receiver: the leanest HTTP server, in a process of its own; it prints its port, then each 1,000th count. */
const RECEIVER = `
let n = 0;
const server = require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => { n++; res.writeHead(204).end(); }); });
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
setInterval(() => process.stdout.write('count ' + n + '\\n'), 50).unref();
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();`;

/** Settings the vault needs for this bench: webhooks to 127.0.0.1, and the machine's NATS. */
export const EVENTS_BENCH_ENV = { STRONGROOM_EVENTS_ALLOW_ADDRESSES: '127.0.0.1/32', STRONGROOM_NATS_URL: 'nats://127.0.0.1:4222' };

function ok(what: string, res: { status: number; body: any }) {
  if (res.status !== 200) throw new Error(`${what} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function receiver(): Promise<{ url: string; count: () => number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let count = 0;
  let port = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (text: string) => {
    for (const line of text.split('\n')) {
      if (line.startsWith('port ')) port = line.slice(5);
      if (line.startsWith('count ')) count = Number(line.slice(6));
    }
  });
  while (!port) await once(child.stdout!, 'data');
  return { url: `http://127.0.0.1:${port}/hooks`, count: () => count, child };
}

async function until(what: () => number | Promise<number>, target: number, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while ((await what()) < target) {
    if (Date.now() > end) throw new Error(`only ${await what()} of ${target} events arrived in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A tenant of its own with PEOPLE people; its admin's headers. */
async function tenantWithPeople(post: Post, root: string, name: string, run: string, first: number) {
  const id = ok('TenantCreate', await post('TenantCreate', { tenantname: name, tenantorg: 'bench' })).tenantid as number;
  const as = { 'x-bunker-token': root, 'x-bunker-tenant': name };
  const tokens: string[] = [];
  for (let i = 0; i < PEOPLE; i += 250) {
    const records = Array.from({ length: 250 }, (_, j) => ({ profile: benchProfile(first + i + j, run) }));
    tokens.push(...(ok('UserCreateBulk', await post('UserCreateBulk', { records }, as)).created as { token: string }[]).map((c) => c.token));
  }
  return { id, as, tokens };
}

/** The dispatcher's rate: events already in the outbox, put in the subscription's queue at once, until all arrived. */
async function deliveryRate(post: Post, as: Record<string, string>, subscriptionid: string, arrived: () => number | Promise<number>): Promise<number> {
  const before = await arrived();
  const started = performance.now();
  let from: number | null = 1;
  while (from !== null) from = ok('EventReplay', await post('EventReplay', { subscriptionid, fromsequence: from, limit: 10_000 }, as)).next as number | null;
  await until(async () => (await arrived()) - before, EVENTS, 120_000);
  return Math.round(EVENTS / ((performance.now() - started) / 1000));
}

export async function measureEvents(base: string, root: string, post: Post, seconds: number): Promise<Row[]> {
  const run = Math.random().toString(16).slice(2, 8);
  const nc = await connect({ servers: '127.0.0.1:4222' });
  const jsm: JetStreamManager = await jetstreamManager(nc);
  const hook = await receiver();
  const quiet = `benchevq${run}`;
  const busy = `benchevs${run}`;
  const stream = `BENCH_${run.toUpperCase()}`;
  try {
    // UserUpdate with two subscriptions delivering beside a tenant with none.
    const none = await tenantWithPeople(post, root, quiet, run, 3_000_000);
    const two = await tenantWithPeople(post, root, busy, run, 3_100_000);
    await jsm.streams.add({ name: stream, subjects: [`strongroom.${two.id}.>`] });
    ok('EventSubscriptionCreate', await post('EventSubscriptionCreate', { url: hook.url, types: ['person.updated'] }, two.as));
    ok('EventSubscriptionCreate', await post('EventSubscriptionCreate', { nats: `strongroom.${two.id}.people`, types: ['person.updated'] }, two.as));
    const update = (tokens: string[]) => (i: number) => ({ mode: 'token', identity: tokens[i % tokens.length], profile: { visits: i } });
    await hammer(base, none.as, 'UserUpdate', 1, update(none.tokens));
    await hammer(base, two.as, 'UserUpdate', 1, update(two.tokens));
    // None, two, none, two, the better of two each.
    const rounds = [];
    for (let r = 0; r < 2; r++) rounds.push({ none: await hammer(base, none.as, 'UserUpdate', seconds, update(none.tokens)), two: await hammer(base, two.as, 'UserUpdate', seconds, update(two.tokens)) });
    const bestNone = Math.max(...rounds.map((r) => r.none.rps));
    const bestTwo = Math.max(...rounds.map((r) => r.two.rps));
    const errors = rounds.reduce((n, r) => n + r.none.errors + r.two.errors, 0);

    // Delivery rates: a tenant whose events are all in the outbox, replayed to each subscription.
    const rated = `benchevr${run}`;
    const ratedId = ok('TenantCreate', await post('TenantCreate', { tenantname: rated, tenantorg: 'bench' })).tenantid as number;
    const as = { 'x-bunker-token': root, 'x-bunker-tenant': rated };
    for (let i = 0; i < EVENTS; i += 1_000) ok('UserCreateBulk', await post('UserCreateBulk', { records: Array.from({ length: 1_000 }, (_, j) => ({ profile: { n: i + j } })) }, as));
    await jsm.streams.add({ name: `${stream}_R`, subjects: [`strongroom.${ratedId}.>`], duplicate_window: 1_000_000_000 });
    const webhookSub = ok('EventSubscriptionCreate', await post('EventSubscriptionCreate', { url: hook.url, types: ['person.created'] }, as)).subscriptionid as string;
    const webhookRate = await deliveryRate(post, as, webhookSub, hook.count);
    ok('EventSubscriptionUpdate', await post('EventSubscriptionUpdate', { subscriptionid: webhookSub, active: false }, as));
    const natsSub = ok('EventSubscriptionCreate', await post('EventSubscriptionCreate', { nats: `strongroom.${ratedId}.people`, types: ['person.created'] }, as)).subscriptionid as string;
    const natsRate = await deliveryRate(post, as, natsSub, async () => (await jsm.streams.info(`${stream}_R`)).state.messages);

    if (errors) throw new Error(`UserUpdate under load answered ${errors} errors`);
    return [
      { metric: 'UserUpdate, tenant without subscriptions (16)', value: bestNone, unit: 'req/s' },
      { metric: 'UserUpdate, two subscriptions delivering (16)', value: bestTwo, unit: 'req/s' },
      { metric: 'UserUpdate with two subscriptions, of none', value: (bestTwo / bestNone) * 100, unit: '%', target: { op: '>=', value: 95 } },
      { metric: `Delivery outbox → webhook (${EVENTS} events)`, value: webhookRate, unit: 'events/s', target: { op: '>=', value: 2_000 } },
      { metric: `Delivery outbox → JetStream (${EVENTS} events)`, value: natsRate, unit: 'events/s', target: { op: '>=', value: 5_000 } },
    ];
  } finally {
    hook.child.stdin!.end();
    for (const s of [stream, `${stream}_R`]) await jsm.streams.delete(s).catch(() => undefined);
    await nc.close();
  }
}

// Alone: a supervised vault of its own on the bench database.
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const { startSupervisor } = await import('../fixtures/processes.js');
  const { benchDatabase } = await import('./database.js');
  const { printTable } = await import('./stats.js');
  const { url, drop } = await benchDatabase('benchev');
  const dataDir = mkdtempSync(join(tmpdir(), 'srbe-'));
  const root = randomUUID();
  const vault = await startSupervisor({ DATABASE_URL: url, STRONGROOM_DATA_DIR: dataDir, STRONGROOM_ROOT_TOKEN: root, STRONGROOM_LOG_LEVEL: 'warn', ...EVENTS_BENCH_ENV }, { built: true });
  try {
    await vault.waitReady();
    const post: Post = async (op, body, headers = {}) => {
      const res = await fetch(`${vault.url}/v2/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-token': root, ...headers }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    printTable(await measureEvents(vault.url, root, post, Number(process.env.BENCH_SECONDS ?? 10)));
  } finally {
    await vault.stop();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
