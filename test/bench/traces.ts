// Tracing's cost on the request path: UserGet by token at 16 connections on a vault tracing at 10 % sampling
// (parentbased_traceidratio, exporting over OTLP/HTTP to a receiver in a child process) beside the same vault with
// tracing off, measured off, traced, traced, off (the better of two each; target: within 5 %), with the CPU each
// process spends per call. Two vaults, each its own database, the same build. Part of `npm run bench`; alone:
// `npm run build && npx tsx test/bench/traces.ts` (BENCH_SECONDS sets the windows, 10 s by default;
// BENCH_TRACES_RATIO another ratio, `off` both sides off: the spread of an A/A run on this machine).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSupervisor, supervisedChildren, type Supervised } from '../fixtures/processes.js';
import { cpuDuring } from './cpu-time.js';
import { benchDatabase } from './database.js';
import { hammer } from './load.js';
import { benchProfile } from './profiles.js';
import { printTable, type Row } from './stats.js';

const PEOPLE = 2_000;
const RATIO = process.env.BENCH_TRACES_RATIO ?? '0.1';

/** The OTLP/HTTP receiver: takes every POST /v1/traces, counts its spans, answers GET /count; a process of its own. */
const RECEIVER = `
let spans = 0;
const server = require('node:http').createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'GET') return res.end(String(spans));
    spans += (Buffer.concat(chunks).toString().match(/"spanId"/g) || []).length;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();`;

async function receiver(): Promise<{ url: string; child: ChildProcess; spans: () => Promise<number> }> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const url = `http://127.0.0.1:${line.toString().trim()}`;
  return { url, child, spans: async () => Number(await (await fetch(`${url}/count`)).text()) };
}

interface Side {
  v: Supervised;
  root: string;
  tokens: string[];
  drop: () => Promise<void>;
  dir: string;
  /** The api's and the tokenizer's pids. */
  pids: { api: number; tokenizer: number };
}

async function vault(env: Record<string, string>): Promise<Side> {
  const { url, drop } = await benchDatabase('benchtrace');
  const dir = mkdtempSync(join(tmpdir(), 'srbt-'));
  const root = randomUUID();
  const v = await startSupervisor({ DATABASE_URL: url, STRONGROOM_DATA_DIR: dir, STRONGROOM_ROOT_TOKEN: root, STRONGROOM_LOG_LEVEL: 'warn', ...env }, { built: true });
  await v.waitReady();
  const tokens: string[] = [];
  for (let i = 0; i < PEOPLE; i += 500) {
    const records = Array.from({ length: 500 }, (_, j) => ({ profile: benchProfile(6_000_000 + i + j, 'traces') }));
    const res = await fetch(`${v.url}/v2/UserCreateBulk`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-token': root }, body: JSON.stringify({ records }) });
    tokens.push(...((await res.json()) as { created: { token: string }[] }).created.map((c) => c.token));
  }
  const { api, tokenizer } = supervisedChildren(v.child.pid!);
  const pids = { api: api!, tokenizer: tokenizer! };
  return { v, root, tokens, drop, dir, pids };
}

export async function measureTraces(seconds: number): Promise<Row[]> {
  const otlp = await receiver();
  const off = await vault({});
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: RATIO };
  const traced = await vault(RATIO === 'off' ? {} : tracing);
  const label = RATIO === 'off' ? 'off again (A/A)' : `traced at ${Number(RATIO) * 100} %`;
  try {
    const sides = [off, traced];
    const body = (s: Side) => (i: number) => ({ mode: 'token', identity: s.tokens[i % s.tokens.length] });
    for (const s of sides) await hammer(s.v.url, { 'x-bunker-token': s.root }, 'UserGet', 1, body(s));
    const best = sides.map(() => ({ rps: 0, cpu: 0, parts: '' }));
    for (let round = 0; round < 2; round++) {
      // Off first, then traced first: the side measured second is not always the same one.
      for (const i of round === 0 ? [0, 1] : [1, 0]) {
        const s = sides[i]!;
        const groups = {
          api: (p: { pid: number }) => p.pid === s.pids.api,
          tokenizer: (p: { pid: number }) => p.pid === s.pids.tokenizer,
          postgres: (p: { comm: string }) => p.comm === 'postgres',
          receiver: (p: { pid: number }) => p.pid === otlp.child.pid,
        };
        let rps = 0;
        const measured = await cpuDuring(groups, async () => {
          const run = await hammer(s.v.url, { 'x-bunker-token': s.root }, 'UserGet', seconds, body(s));
          if (run.errors) throw new Error(`UserGet under load answered ${run.errors} errors`);
          rps = run.rps;
          return run.rps * seconds;
        });
        if (rps > best[i]!.rps) {
          const cpu = Object.values(measured.perCall).reduce((sum, ms) => sum + ms, 0);
          const parts = Object.entries(measured.perCall).map(([g, ms]) => `${g} ${ms.toFixed(3)}`).join(', ');
          best[i] = { rps, cpu, parts };
        }
      }
    }
    const spans = await otlp.spans();
    const [none, ten] = best as [(typeof best)[0], (typeof best)[0]];
    return [
      { metric: 'UserGet by token, tracing off (16)', value: none.rps, unit: 'req/s' },
      { metric: `UserGet by token, ${label} (16)`, value: ten.rps, unit: 'req/s' },
      { metric: `UserGet ${label}, of off`, value: (ten.rps / none.rps) * 100, unit: '%', target: { op: '>=', value: 95 } },
      { metric: 'CPU ms per UserGet, tracing off', value: none.cpu, unit: `ms (${none.parts})` },
      { metric: `CPU ms per UserGet, ${label}`, value: ten.cpu, unit: `ms (${ten.parts})` },
      { metric: 'spans exported while traced', value: spans, unit: 'spans' },
    ];
  } finally {
    for (const s of [off, traced]) {
      await s.v.stop();
      await s.drop();
      rmSync(s.dir, { recursive: true, force: true });
    }
    otlp.child.stdin!.end();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  printTable(await measureTraces(Number(process.env.BENCH_SECONDS ?? 10)));
}
