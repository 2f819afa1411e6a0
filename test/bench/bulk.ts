// UserCreateBulk beside the raw multi-row INSERT limit of the same machine, for `npm run bench` and alone:
// `npm run build && npx tsx test/bench/bulk.ts` (BENCH_QUICK=1: 4 batches a round) starts the compiled vault on a
// throw-away database and prints raw INSERT rows/s, UserCreateBulk records/s at one and two requests in flight, and
// the ratio to the better raw round.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startSupervisor } from '../fixtures/processes.js';
import { benchProfile } from './profiles.js';
import { benchDatabase } from './database.js';

export const BATCH = 1000;

/** Rows/s of `batches` multi-row INSERTs of BATCH rows of ~5.7 KB (random bytes, a UUID key, three unique index columns). */
export async function rawInsertLimit(url: string, schema: string, batches: number): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`create schema ${schema}`);
    await c.query(`create table ${schema}.users (token uuid primary key, profile bytea not null, login_idx bytea unique,
      email_idx bytea unique, phone_idx bytea unique, custom_idx bytea unique, version int not null, created bigint not null)`);
    const payload = () => randomBytes(5600);
    // Made before the clock starts, as the vault's requests are.
    const values = Array.from({ length: BATCH }, (_, i) => `($${i * 6 + 1}, $${i * 6 + 2}, $${i * 6 + 3}, $${i * 6 + 4}, $${i * 6 + 5}, null, 1, $${i * 6 + 6})`).join(', ');
    const rows = Array.from({ length: batches }, () =>
      Array.from({ length: BATCH }, () => [randomUUID(), payload(), randomBytes(32), randomBytes(32), randomBytes(32), Date.now()]).flat(),
    );
    const started = performance.now();
    for (const params of rows) await c.query(`insert into ${schema}.users values ${values}`, params);
    return (batches * BATCH) / ((performance.now() - started) / 1000);
  } finally {
    await c.end();
  }
}

/** POST /v2/<op> through `agent`: `body` as it is when bytes (JSON made ahead of a measurement), else as JSON. */
export function postOp(agent: Agent, base: string, token: string, op: string, body: unknown, extra: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const data = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(`${base}/v2/${op}`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': data.length, 'x-bunker-token': token, ...extra },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Bodies of `batches` UserCreateBulk requests of BATCH new people numbered from `start`, as bytes, and their emails. */
export function bulkBodies(run: string, start: number, batches: number): BulkBody[] {
  return Array.from({ length: batches }, (_, b) => {
    const records = Array.from({ length: BATCH }, (_, i) => ({ profile: benchProfile(start + b * BATCH + i, run) }));
    return { emails: records.map((r) => r.profile.email as string), json: Buffer.from(JSON.stringify({ records })) };
  });
}

export interface BulkBody {
  emails: string[];
  json: Buffer;
}

/**
 * The UserCreateBulk requests of `bodies`, one in flight per credential of `tokens` (a credential may have one large
 * body in flight: STRONGROOM_LARGE_BODIES), each on a keep-alive socket of its own:
 * records/s, and the people's emails and tokens. Throws on any answer but all created. The bodies are made before
 * (`bulkBodies`), as the reference's rows are: building 1,000 profiles of 120 fields and their JSON took the load
 * generator 0.3 ms of CPU per record on the vault's cores.
 */
export async function measureBulk(base: string, tokens: readonly string[], bodies: BulkBody[]) {
  const emails: string[] = [];
  const made: string[] = [];
  const queue = bodies.map((_, b) => b);
  const agent = new Agent({ keepAlive: true, maxSockets: tokens.length });
  const started = performance.now();
  const worker = async (token: string) => {
    for (let b = queue.shift(); b !== undefined; b = queue.shift()) {
      const { emails: asked, json } = bodies[b]!;
      const res = await postOp(agent, base, token, 'UserCreateBulk', json);
      if (res.status !== 200 || res.body.created?.length !== BATCH || res.body.errors?.length !== 0) {
        throw new Error(`UserCreateBulk failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
      }
      emails.push(...asked);
      for (const c of res.body.created as { token: string }[]) made.push(c.token);
    }
  };
  try {
    await Promise.all(tokens.map(worker));
  } finally {
    agent.destroy();
  }
  return { perSecond: (bodies.length * BATCH) / ((performance.now() - started) / 1000), emails, tokens: made };
}

/** A tenant-admin token of the main tenant (TenantRotateAdminToken), a second credential beside root. */
export async function mainAdminToken(base: string, root: string): Promise<string> {
  const res = await fetch(`${base}/v2/TenantRotateAdminToken`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-token': root }, body: JSON.stringify({ tenantid: 1 }) });
  const body = (await res.json()) as { xtoken?: string };
  if (res.status !== 200 || !body.xtoken) throw new Error(`TenantRotateAdminToken: ${res.status} ${JSON.stringify(body)}`);
  return body.xtoken;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const batches = process.env.BENCH_QUICK === '1' ? 4 : 20;
  const { url, drop } = await benchDatabase('bulk');
  const dataDir = mkdtempSync(join(tmpdir(), 'srb-'));
  const root = randomUUID();
  const vault = await startSupervisor({ DATABASE_URL: url, STRONGROOM_DATA_DIR: dataDir, STRONGROOM_ROOT_TOKEN: root, STRONGROOM_LOG_LEVEL: 'warn' }, { built: true });
  try {
    await vault.waitReady();
    const run = randomBytes(3).toString('hex');
    const raw1 = await rawInsertLimit(url, 'raw_bulk1', batches);
    const seq = await measureBulk(vault.url, [root], bulkBodies(run, 1_000_000, batches));
    const par = await measureBulk(vault.url, [root, await mainAdminToken(vault.url, root)], bulkBodies(run, 1_000_000 + batches * BATCH, batches));
    const raw = Math.max(raw1, await rawInsertLimit(url, 'raw_bulk2', batches));
    const best = Math.max(seq.perSecond, par.perSecond);
    console.log(`raw INSERT ${Math.round(raw1)} and ${Math.round(raw)} rows/s (better); UserCreateBulk ${Math.round(seq.perSecond)} records/s at 1 in flight, ${Math.round(par.perSecond)} at 2: ${((best / raw) * 100).toFixed(1)} % of raw INSERT (target ≥ 50 %)`);
  } finally {
    await vault.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await drop();
  }
}
