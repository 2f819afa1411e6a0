// Throughput of the privacy event sinks: 20,000 CloudEvents to a local webhook receiver (a child process answering
// 204) and to the machine's JetStream (127.0.0.1:4222), in batches as the dispatcher hands them over; events/s.
// Not a test: `npx tsx test/bench/event-sinks.ts` (targets: 2,000/s webhook, 5,000/s JetStream on 2 cores).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Outgoing, Sink } from '../../api/vault/privacy/sink.js';
import { parseAllowList } from '../../api/vault/privacy/ssrf.js';
import { newWebhookSecret, WebhookSink } from '../../api/vault/privacy/webhook.js';
import { NatsBroker } from '../../api/vault/privacy/nats.js';

const EVENTS = 20_000;
const BATCH = 500;
const WARMUP = 1_000;

/** The receiver: the leanest HTTP server, in its own process so it does not share the sink's event loop. */
const RECEIVER = `
const server = require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(204).end()); });
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();`;

function events(count: number): Outgoing[] {
  return Array.from({ length: count }, (_, n) => {
    const id = crypto.randomUUID();
    const time = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ specversion: '1.0', id, source: '/strongroom/bench', type: 'dev.strongroom.person.erased',
      time: new Date(time * 1000).toISOString(), datacontenttype: 'application/json', data: { tenant: 'bench', token: crypto.randomUUID(), n } });
    return { id, body, time };
  });
}

/** Delivers `list` in dispatcher-sized batches; events/s, and how many failed. */
async function measure(sink: Sink, list: Outgoing[]): Promise<{ rate: number; failed: number }> {
  let failed = 0;
  const started = performance.now();
  for (let i = 0; i < list.length; i += BATCH) {
    failed += (await sink.deliver(list.slice(i, i + BATCH))).filter((r) => !r.ok).length;
  }
  return { rate: Math.round(list.length / ((performance.now() - started) / 1000)), failed };
}

async function webhook(): Promise<string> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const sink = new WebhookSink({ url: `http://127.0.0.1:${line.toString().trim()}/hooks`, secrets: [newWebhookSecret()],
      allow: parseAllowList('127.0.0.1/32'), timeoutMs: 10_000, maxResponseBytes: 65_536 });
    await measure(sink, events(WARMUP));
    const { rate, failed } = await measure(sink, events(EVENTS));
    await sink.close();
    return `webhook    ${rate} events/s (${EVENTS} events, ${failed} failed)`;
  } finally {
    child.stdin.end();
  }
}

async function nats(): Promise<string> {
  const suffix = crypto.randomUUID().replaceAll('-', '');
  const admin = await connect({ servers: '127.0.0.1:4222' });
  const jsm = await jetstreamManager(admin);
  await jsm.streams.add({ name: `STRONGROOM_BENCH_${suffix}`, subjects: [`strongroom.bench.${suffix}`] });
  const broker = await NatsBroker.connect('127.0.0.1:4222', { name: 'strongroom-bench' });
  try {
    const sink = broker.sink(`strongroom.bench.${suffix}`);
    await measure(sink, events(WARMUP));
    const { rate, failed } = await measure(sink, events(EVENTS));
    return `jetstream  ${rate} events/s (${EVENTS} events, ${failed} failed)`;
  } finally {
    await jsm.streams.delete(`STRONGROOM_BENCH_${suffix}`);
    await broker.close();
    await admin.close();
  }
}

console.log(await webhook());
console.log(await nats());
