// The thinnest server doing a vault's work (issue #16's references), run as its own process beside the vault:
// bare Koa + koa-body, an HMAC-SHA256 lookup hash and AES-256-GCM in-process, one pg.Pool of 10 connections on a
// schema of its own. `node --import tsx test/bench/reference.ts` with REF_DATABASE_URL, REF_SCHEMA and PORT; it
// prints `listening` once it serves. The bench compares the vault's figures with these, in the same run.
//   POST /seed       {profiles}           stores them sealed (one multi-row INSERT)
//   POST /UserGet    {identity}           read reference: hash, one SELECT, open, parse, audit row (group commit)
//   POST /UserUpdate {identity, profile}  write reference: one transaction (lock, open, merge, seal, version, audit)
import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import pg from 'pg';

const schema = process.env.REF_SCHEMA ?? 'ref_bench';
const pool = new pg.Pool({ connectionString: process.env.REF_DATABASE_URL, max: 10 });
const hashKey = randomBytes(32);
const dataKey = randomBytes(32);
const t = `"${schema}"`;

const emailHash = (email: string) => createHmac('sha256', hashKey).update(email.trim().toLowerCase()).digest();

/** iv (12) | tag (16) | ciphertext, the row's token as AAD. */
function seal(token: string, plain: Buffer): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', dataKey, iv);
  c.setAAD(Buffer.from(token));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]);
}

function open(token: string, sealed: Buffer): Buffer {
  const d = createDecipheriv('aes-256-gcm', dataKey, sealed.subarray(0, 12));
  d.setAAD(Buffer.from(token));
  d.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([d.update(sealed.subarray(28)), d.final()]);
}

// Group commit: rows queued while one INSERT runs go together in the next; each response waits for its batch.
type AuditRow = [string, number, string, string | null, string];
let queued: { row: AuditRow; done: (err?: unknown) => void }[] = [];
let flushing = false;

function audit(row: AuditRow): Promise<void> {
  return new Promise((resolve, reject) => {
    queued.push({ row, done: (err) => (err ? reject(err) : resolve()) });
    if (!flushing) void flush();
  });
}

async function flush(): Promise<void> {
  flushing = true;
  while (queued.length) {
    const batch = queued;
    queued = [];
    const values = batch.map((_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`).join(', ');
    try {
      await pool.query(`insert into ${t}.audit (uuid, at, op, record, status) values ${values}`, batch.flatMap((b) => b.row));
      for (const b of batch) b.done();
    } catch (err) {
      for (const b of batch) b.done(err);
    }
  }
  flushing = false;
}

async function setUp(): Promise<void> {
  await pool.query(`create schema if not exists ${t}`);
  await pool.query(`create table if not exists ${t}.users (token uuid primary key, email_hash bytea not null unique, profile bytea not null,
    version int not null, updated bigint not null)`);
  await pool.query(`create table if not exists ${t}.versions (token uuid not null, version int not null, profile bytea not null,
    optime bigint not null, primary key (token, version))`);
  await pool.query(`create table if not exists ${t}.audit (id bigserial primary key, uuid uuid not null, at bigint not null, op text not null,
    record uuid, status text not null)`);
}

const app = new Koa();
app.use(koaBody({ jsonLimit: '50mb' }));
app.use(async (ctx) => {
  const body = ctx.request.body as Record<string, any>;
  const now = Math.floor(Date.now() / 1000);
  if (ctx.path === '/v2/UserGet') {
    const { rows } = await pool.query(`select token, profile from ${t}.users where email_hash = $1`, [emailHash(String(body.identity))]);
    const row = rows[0] as { token: string; profile: Buffer } | undefined;
    if (!row) throw Object.assign(new Error('not found'), { status: 404, expose: true });
    const profile = JSON.parse(open(row.token, row.profile).toString('utf8')) as unknown;
    await audit([randomUUID(), now, 'UserGet', row.token, 'ok']);
    ctx.body = { status: 'ok', token: row.token, profile };
  } else if (ctx.path === '/v2/UserUpdate') {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query(`select token, profile, version, updated from ${t}.users where email_hash = $1 for update`, [
        emailHash(String(body.identity)),
      ]);
      const row = rows[0] as { token: string; profile: Buffer; version: number; updated: string } | undefined;
      if (!row) throw Object.assign(new Error('not found'), { status: 404, expose: true });
      const profile = { ...(JSON.parse(open(row.token, row.profile).toString('utf8')) as object), ...(body.profile as object) };
      const sealed = seal(row.token, Buffer.from(JSON.stringify(profile)));
      await client.query(`insert into ${t}.versions (token, version, profile, optime) values ($1, $2, $3, $4)`, [row.token, row.version, row.profile, row.updated]);
      await client.query(`update ${t}.users set profile = $2, version = $3, updated = $4 where token = $1`, [row.token, sealed, row.version + 1, now]);
      await client.query(`insert into ${t}.audit (uuid, at, op, record, status) values ($1, $2, $3, $4, $5)`, [randomUUID(), now, 'UserUpdate', row.token, 'ok']);
      await client.query('commit');
      ctx.body = { status: 'ok' };
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  } else if (ctx.path === '/seed') {
    const profiles = body.profiles as Record<string, unknown>[];
    const params: unknown[] = [];
    const values = profiles.map((p, i) => {
      const token = randomUUID();
      params.push(token, emailHash(String(p.email)), seal(token, Buffer.from(JSON.stringify(p))), now);
      return `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, 1, $${i * 4 + 4})`;
    });
    await pool.query(`insert into ${t}.users (token, email_hash, profile, version, updated) values ${values.join(', ')}`, params);
    ctx.body = { status: 'ok' };
  } else {
    ctx.throw(404);
  }
});

await setUp();
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log('listening'));
process.once('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
