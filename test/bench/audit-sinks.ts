// The audit sinks' cost on the request path: UserGet by token and UserUpdate at 16 connections on a vault streaming
// its trail to a real rsyslog (RFC 5424 over TCP) and to an HTTP collector (a child process), beside the same vault
// without sinks, measured none, sinks, none, sinks (the better of two each; target: within 5 %). Two vaults, each its
// own database, the same build. Part of `npm run bench`; alone: `npm run build && npx tsx test/bench/audit-sinks.ts`.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSupervisor, type Supervised } from '../fixtures/processes.js';
import { startRsyslog } from '../fixtures/rsyslog.js';
import { benchDatabase } from './database.js';
import { hammer } from './load.js';
import { benchProfile } from './profiles.js';
import { printTable, type Row } from './stats.js';

const PEOPLE = 2_000;

/** The collector: takes every POST and answers 204, in a process of its own. */
const COLLECTOR = `
const server = require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(204).end()); });
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();`;

async function collector(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', COLLECTOR], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${line.toString().trim()}/ingest`, child };
}

async function vault(env: Record<string, string>): Promise<{ v: Supervised; root: string; drop: () => Promise<void>; dir: string }> {
  const { url, drop } = await benchDatabase('benchsink');
  const dir = mkdtempSync(join(tmpdir(), 'srbs-'));
  const root = randomUUID();
  const v = await startSupervisor({ DATABASE_URL: url, STRONGROOM_DATA_DIR: dir, STRONGROOM_ROOT_TOKEN: root, STRONGROOM_LOG_LEVEL: 'warn', ...env }, { built: true });
  await v.waitReady();
  return { v, root, drop, dir };
}

async function people(base: string, root: string): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < PEOPLE; i += 500) {
    const records = Array.from({ length: 500 }, (_, j) => ({ profile: benchProfile(5_000_000 + i + j, 'sinks') }));
    const res = await fetch(`${base}/v2/UserCreateBulk`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-token': root }, body: JSON.stringify({ records }) });
    tokens.push(...((await res.json()) as { created: { token: string }[] }).created.map((c) => c.token));
  }
  return tokens;
}

export async function measureAuditSinks(seconds: number): Promise<Row[]> {
  const syslog = await startRsyslog();
  const http = await collector();
  const sinks = JSON.stringify([
    { name: 'soc', type: 'syslog', host: '127.0.0.1', port: syslog.port, format: 'json' },
    { name: 'lake', type: 'http', url: http.url, shape: 'lines', format: 'json' },
  ]);
  const none = await vault({});
  const withSinks = await vault({ STRONGROOM_AUDIT_SINKS: sinks });
  try {
    const sides = await Promise.all(
      [none, withSinks].map(async (s) => ({ base: s.v.url, as: { 'x-bunker-token': s.root }, tokens: await people(s.v.url, s.root) })),
    );
    const get = (tokens: string[]) => (i: number) => ({ mode: 'token', identity: tokens[i % tokens.length] });
    const update = (tokens: string[]) => (i: number) => ({ mode: 'token', identity: tokens[i % tokens.length], profile: { visits: i } });
    const best = async (op: string, body: (t: string[]) => (i: number) => unknown) => {
      for (const s of sides) await hammer(s.base, s.as, op, 1, body(s.tokens));
      const rounds: number[][] = [[], []];
      for (let r = 0; r < 2; r++) {
        for (const [i, s] of sides.entries()) {
          const run = await hammer(s.base, s.as, op, seconds, body(s.tokens));
          if (run.errors) throw new Error(`${op} under load answered ${run.errors} errors`);
          rounds[i]!.push(run.rps);
        }
      }
      return { none: Math.max(...rounds[0]!), sinks: Math.max(...rounds[1]!) };
    };
    const reads = await best('UserGet', get);
    const writes = await best('UserUpdate', update);
    return [
      { metric: 'UserGet by token, no audit sink (16)', value: reads.none, unit: 'req/s' },
      { metric: 'UserGet by token, syslog + collector sinks (16)', value: reads.sinks, unit: 'req/s' },
      { metric: 'UserGet with two audit sinks, of none', value: (reads.sinks / reads.none) * 100, unit: '%', target: { op: '>=', value: 95 } },
      { metric: 'UserUpdate, no audit sink (16)', value: writes.none, unit: 'req/s' },
      { metric: 'UserUpdate, syslog + collector sinks (16)', value: writes.sinks, unit: 'req/s' },
      { metric: 'UserUpdate with two audit sinks, of none', value: (writes.sinks / writes.none) * 100, unit: '%', target: { op: '>=', value: 95 } },
    ];
  } finally {
    for (const s of [none, withSinks]) {
      await s.v.stop();
      await s.drop();
      rmSync(s.dir, { recursive: true, force: true });
    }
    http.child.stdin!.end();
    await syslog.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  printTable(await measureAuditSinks(Number(process.env.BENCH_SECONDS ?? 10)));
}
