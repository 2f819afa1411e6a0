// Statements and tokenizer calls per request: `npx tsx test/bench/statements.ts` (after `npm run build`) starts the
// compiled vault with count-statements.mjs preloaded, makes 200 people, then sends each operation below 200 times
// one after another and prints what each call cost on average: SQL statements by text, gRPC calls by method, and the
// bytes of write-ahead log the database wrote (the cluster's, so nothing else may run against it meanwhile).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startSupervisor } from '../fixtures/processes.js';
import { benchProfile } from './profiles.js';
import { benchDatabase } from './database.js';
import pg from 'pg';

const N = 200;
const preload = fileURLToPath(new URL('./count-statements.mjs', import.meta.url));

const { url, drop } = await benchDatabase('stmts');
const dataDir = mkdtempSync(join(tmpdir(), 'srs-'));
const countDir = mkdtempSync(join(tmpdir(), 'src-'));
const root = randomUUID();
const vault = await startSupervisor(
  {
    DATABASE_URL: url,
    STRONGROOM_DATA_DIR: dataDir,
    STRONGROOM_ROOT_TOKEN: root,
    STRONGROOM_LOG_LEVEL: 'warn',
    NODE_OPTIONS: `--import ${pathToFileURL(preload).href}?dir=${encodeURIComponent(countDir)}`,
    COUNT_DIR: countDir,
  },
  { built: true },
);

async function post(op: string, body: unknown): Promise<any> {
  const res = await fetch(`${vault.url}/v2/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-token': root }, body: JSON.stringify(body) });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${op}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** The totals of every process so far, after their next write. */
async function totals(): Promise<Map<string, number>> {
  await new Promise((r) => setTimeout(r, 300));
  const all = new Map<string, number>();
  for (const f of readdirSync(countDir).filter((name) => name.endsWith('.json'))) {
    for (const [k, v] of Object.entries(JSON.parse(readFileSync(join(countDir, f), 'utf8')) as Record<string, number>)) all.set(k, (all.get(k) ?? 0) + v);
  }
  return all;
}

const walClient = new pg.Client({ connectionString: url });
await walClient.connect();
const walAt = async (): Promise<string> => ((await walClient.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn);
const walSince = async (from: string): Promise<number> =>
  Number((await walClient.query<{ n: string }>('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint as n', [from])).rows[0]!.n);

async function measure(op: string, body: (i: number) => unknown): Promise<void> {
  // One call first: caches (lookup hashes, role statements, prepared plans) are warm when counting starts.
  await post(op, body(N));
  const before = await totals();
  const wal = await walAt();
  for (let i = 0; i < N; i++) await post(op, body(i));
  const walBytes = await walSince(wal);
  const after = await totals();
  const rows = [...after].map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / N] as const).filter(([, v]) => v > 0.01);
  const sum = (prefix: string) => rows.filter(([k]) => k.startsWith(prefix)).reduce((a, [, v]) => a + v, 0);
  console.log(`\n${op}: ${sum('sql').toFixed(2)} statements, ${sum('grpc').toFixed(2)} tokenizer calls, ${Math.round(walBytes / N)} bytes of WAL per call`);
  for (const [k, v] of rows.sort((a, b) => b[1] - a[1])) console.log(`  ${v.toFixed(2)}  ${k}`);
}

try {
  await vault.waitReady();
  const run = randomBytes(3).toString('hex');
  const profiles = Array.from({ length: N + 1 }, (_, i) => benchProfile(1_000_000 + i, run));
  const { created } = (await post('UserCreateBulk', { records: profiles.map((profile) => ({ profile })) })) as { created: { token: string }[] };
  const tokens = created.map((c) => c.token);
  for (const t of tokens) await post('AppdataCreate', { mode: 'token', identity: t, appname: 'bench', appdata: { plan: 'basic' } });
  await post('LegalBasisCreate', { brief: 'bench-marketing', basistype: 'consent' });
  const email = (i: number) => profiles[i]!.email as string;
  await measure('UserGet', (i) => ({ mode: 'email', identity: email(i) }));
  await measure('UserUpdate', (i) => ({ mode: 'email', identity: email(i), profile: { visits: i } }));
  await measure('AppdataUpdate', (i) => ({ mode: 'token', identity: tokens[i], appname: 'bench', appdata: { visits: i } }));
  await measure('AgreementAccept', (i) => ({ mode: 'token', identity: tokens[i], brief: 'bench-marketing', agreementmethod: 'web-form', finaltime: '1y' }));
  await measure('SessionUpsert', (i) => ({ sessionuuid: randomUUID(), mode: 'token', identity: tokens[i], sessiondata: { page: i } }));
} finally {
  await walClient.end();
  await vault.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(countDir, { recursive: true, force: true });
  await drop();
}
