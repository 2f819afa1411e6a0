// Where signed audit checkpoints go and how they are elected: one signer per tenant at a time (an advisory lock),
// paced by how far the database says the trail is checkpointed; written to a directory and to an S3 bucket (s3rver
// here, which has no Object Lock: the vault says so and writes without; with the lock forced on, the retention
// headers reach the store); a target that fails is logged, counted, tried again, and never fails a user's call.
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, vi } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { usingPostgres } from '../fixtures/database.js';

import { checkpointLock } from '../../api/store/locks.js';
import { registry } from '../../api/metrics.js';
import { CheckpointUnwrittenError } from '../../api/vault/audit/checkpoints.js';
import { checkpointObjectKey } from '../../api/vault/audit/checkpoint-targets.js';
import { readCheckpointsFrom, verifyTrail, type Query } from '../../api/audit-verify.js';
import { checkpointKey, checkpointSigned, parseCheckpoint, type CheckpointLine } from '../../proto/audit-checkpoint.js';

interface S3rverServer {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  httpServer?: Server;
}
// s3rver ships no types.
const S3rver = createRequire(import.meta.url)('s3rver') as new (opts: Record<string, unknown>) => S3rverServer;
const BUCKET = 'strongroom-audit';
const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** One S3 server for the file, on a fixed port so it can be stopped (the store goes down) and started again. */
const s3dir = mkdtempSync(join(tmpdir(), 'sr-ckpt-s3-'));
const received: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
let s3server: S3rverServer | undefined;
let s3port = 0;
async function s3up(): Promise<string> {
  s3server = new S3rver({ address: '127.0.0.1', port: s3port, silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET }] });
  s3port = (await s3server.run()).port;
  // What the store received, as it received it: the test's window on the headers the vault sent.
  s3server.httpServer!.on('request', (req: { method?: string; url?: string; headers: IncomingHttpHeaders }) => received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers }));
  return `http://127.0.0.1:${s3port}`;
}
async function s3down(): Promise<void> {
  await s3server?.close();
  s3server = undefined;
}
const endpoint = await s3up();
const s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED' });
afterAll(async () => {
  s3.destroy();
  await s3down();
  rmSync(s3dir, { recursive: true, force: true });
});
const s3env = (prefix: string, more: Record<string, string> = {}) => ({
  STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET: BUCKET,
  STRONGROOM_AUDIT_CHECKPOINTS_S3_PREFIX: prefix,
  STRONGROOM_AUDIT_CHECKPOINTS_S3_ENDPOINT: endpoint,
  STRONGROOM_AUDIT_CHECKPOINTS_S3_FORCE_PATH_STYLE: 'true',
  AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
  STRONGROOM_AUDIT_VERIFY_SECONDS: '0',
  ...more,
});

// Checkpoints only when a test asks (checkpoint(), checkpointAll(): what every tick runs), to a directory and a bucket.
const checkpointDir = mkdtempSync(join(tmpdir(), 'sr-ckpt-dir-'));
const it = vaultTest({
  env: { ...s3env('audit/ckpt/'), STRONGROOM_AUDIT_CHECKPOINT_DIR: checkpointDir, STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0' },
});
// Object Lock forced on, in governance mode for two days.
const locked = vaultTest({
  env: s3env('locked', { STRONGROOM_AUDIT_CHECKPOINTS_S3_OBJECT_LOCK: 'on', STRONGROOM_AUDIT_CHECKPOINTS_S3_LOCK_MODE: 'GOVERNANCE', STRONGROOM_AUDIT_CHECKPOINTS_S3_RETENTION_DAYS: '2', STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0' }),
});
// A checkpoint directory that cannot be made (its parent is a file; the tests may run as root), on a 1 s tick.
const blocker = join(mkdtempSync(join(tmpdir(), 'sr-ckpt-blocked-')), 'not-a-dir');
writeFileSync(blocker, '');
const blocked = vaultTest({
  env: { STRONGROOM_AUDIT_CHECKPOINT_DIR: join(blocker, 'checkpoints'), STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '1', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0' },
});

const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query<Record<string, any>>(text, params);

/** A tenant with a few events in its trail, and its admin's headers. */
async function tenant(vault: TestVault, events = 4) {
  const name = `ckpt${randomUUID().slice(0, 8)}`;
  const created = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Checkpoints' });
  expect(created.status).toBe(200);
  const admin = { 'x-bunker-token': created.body.xtoken as string };
  for (let i = 0; i < events; i++) expect((await vault.call('UserCreate', { profile: buildProfile() }, admin)).status).toBe(200);
  return { id: created.body.tenantid as number, name, admin };
}

const headOf = async (vault: TestVault, id: number) => Number((await sql(vault, `select seq from tenant_${id}.audit_head`))[0]!.seq);
const markOf = async (vault: TestVault, id: number) => (await sql(vault, `select seq, link from tenant_${id}.audit_checkpointed`))[0]!;
const fileLines = (dir: string, id: number): CheckpointLine[] => {
  try {
    return readFileSync(join(dir, `tenant-${id}.jsonl`), 'utf8').split('\n').map(parseCheckpoint).filter((c): c is CheckpointLine => c !== null);
  } catch {
    return [];
  }
};
async function failures(target: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'strongroom_audit_checkpoint_write_failures_total');
  return Number((metric?.values as { value: number; labels: { target?: string } }[] | undefined)?.find((v) => v.labels.target === target)?.value ?? 0);
}
async function object(key: string): Promise<string | null> {
  try {
    return await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToString();
  } catch {
    return null;
  }
}
/** The messages the api logged at a level (the vault logs nothing itself: the level is silent, the calls are seen). */
const logged = (spy: { mock: { calls: unknown[][] } }, msg: string) => spy.mock.calls.filter((c) => c.includes(msg)).map((c) => c[0] as Record<string, any>);

describe('checkpoints in an S3 bucket', () => {
  it('writes each checkpoint as an object, says the store has no Object Lock, and the auditor reads the bucket', async ({ vault }) => {
    const t = await tenant(vault);
    const warn = vi.spyOn(vault.api.services.log, 'warn');
    const line = (await vault.api.services.auditCheckpoints.checkpoint(t.id))!;
    const key = checkpointObjectKey('audit/ckpt/', t.id, line.seq);
    expect(key).toBe(`audit/ckpt/tenant-${t.id}/${String(line.seq).padStart(20, '0')}.json`);
    const stored = parseCheckpoint((await object(key))!);
    expect(stored).toEqual(line);
    const pem = (await vault.call('SystemGetKeyringStatus')).body.auditpublickey as string;
    expect(checkpointSigned(checkpointKey(pem), stored!)).toBe(true);
    // The first write of this vault asked the bucket; s3rver does not implement Object Lock, and the log says so.
    const noLock = logged(warn, 'audit checkpoints are written to S3 without Object Lock: the bucket or the store does not support it, so whoever may write the bucket may delete or replace them');
    expect(noLock).toEqual([{ bucket: BUCKET, reason: 'NotImplemented' }]);
    const put = received.filter((r) => r.method === 'PUT' && r.url.includes(key));
    expect(put).toHaveLength(1);
    expect(put[0]!.headers['x-amz-object-lock-mode']).toBeUndefined();
    warn.mockRestore();

    // The auditor: the bucket, the database and the public key.
    const q: Query = (text, params) => sql(vault, text, params);
    const fromBucket = await readCheckpointsFrom(`s3://${BUCKET}/audit/ckpt`, t.id, { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
    expect(fromBucket).toEqual([line]);
    expect(await verifyTrail(q, t.id, fromBucket, pem)).toMatchObject({ result: 'intact', provenUpTo: line.seq });
    // AuditVerify reads the bucket's checkpoints too (the api's own view).
    expect((await vault.call('AuditVerify', {}, t.admin)).body).toMatchObject({ result: 'intact' });
  });

  it.skipIf(!usingPostgres())('is read by `npm run audit:verify -- --checkpoints s3://bucket/prefix` (PostgreSQL only: the embedded database belongs to one process)', async ({ vault }) => {
    const t = await tenant(vault, 3);
    const line = (await vault.api.services.auditCheckpoints.checkpoint(t.id))!;
    const keyFile = join(checkpointDir, '..', `ckpt-${t.id}.pub`);
    writeFileSync(keyFile, (await vault.call('SystemGetKeyringStatus')).body.auditpublickey as string);
    const run = (checkpoints: string, env: Record<string, string>) =>
      promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'api/audit-verify.ts', '--database-url', vault.api.services.config.databaseUrl!, '--tenant', t.name, '--checkpoints', checkpoints, '--public-key', keyFile, '--s3-endpoint', endpoint, '--s3-force-path-style'],
        { env: { ...process.env, ...env } },
      ).then(
        (r) => ({ code: 0, out: r.stdout }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout || e.stderr }),
      );
    const creds = { AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey, AWS_REGION: 'us-east-1' };
    const intact = await run(`s3://${BUCKET}/audit/ckpt/`, creds);
    expect(intact.code, intact.out).toBe(0);
    expect(JSON.parse(intact.out)).toMatchObject({ tenant: t.id, result: 'intact', provenUpTo: line.seq, checkpoints: { valid: 1, badSignature: 0 } });
    // The wrong prefix holds no checkpoint of it: nothing is proven, and the command says so.
    expect(JSON.parse((await run(`s3://${BUCKET}/elsewhere`, creds)).out)).toMatchObject({ provenUpTo: 0, checkpoints: { valid: 0 } });
    // A checkpoint replaced in the bucket by one not signed by the vault's key is not counted.
    const forged = { ...line, signature: randomBytes(64).toString('base64') };
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: checkpointObjectKey('audit/ckpt/', t.id, line.seq), Body: JSON.stringify(forged) }));
    expect(JSON.parse((await run(`s3://${BUCKET}/audit/ckpt`, creds)).out)).toMatchObject({ provenUpTo: 0, checkpoints: { valid: 0, badSignature: 1 } });
  });

  it('keeps a checkpoint the bucket could not take, never fails a call for it, and writes it when the store is back', async ({ vault }) => {
    const t = await tenant(vault, 2);
    const info = vi.spyOn(vault.api.services.log, 'info');
    const error = vi.spyOn(vault.api.services.log, 'error');
    const before = await failures('s3');
    await s3down();
    try {
      // Calls go on while the store is down.
      for (let i = 0; i < 3; i++) expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
      await expect(vault.api.services.auditCheckpoints.checkpoint(t.id)).rejects.toBeInstanceOf(CheckpointUnwrittenError);
      expect(await failures('s3')).toBeGreaterThanOrEqual(before + 1);
      const counted = await failures('s3');
      expect(logged(error, 'audit checkpoint not written: tried again at the next tick').filter((l) => l.tenantId === t.id)).toEqual([
        expect.objectContaining({ tenantId: t.id, target: 's3', seq: await headOf(vault, t.id) }),
      ]);
      // The directory took it; the database does not count it as checkpointed, so the next pass tries again.
      expect(fileLines(checkpointDir, t.id)).toHaveLength(1);
      expect(Number((await markOf(vault, t.id)).seq)).toBe(0);
      await vault.api.services.auditCheckpoints.checkpointAll();
      expect(await failures('s3')).toBeGreaterThan(counted);
    } finally {
      await s3up();
    }
    await vault.api.services.auditCheckpoints.checkpointAll();
    const head = await headOf(vault, t.id);
    expect(parseCheckpoint((await object(checkpointObjectKey('audit/ckpt/', t.id, head)))!)).toMatchObject({ tenant: t.id, seq: head });
    expect(Number((await markOf(vault, t.id)).seq)).toBe(head);
    // Signed once and written where it was owed: one log line, one line in the directory.
    expect(logged(info, 'audit checkpoint').filter((l) => l.checkpoint?.tenant === t.id)).toHaveLength(1);
    expect(fileLines(checkpointDir, t.id)).toHaveLength(1);
    info.mockRestore();
    error.mockRestore();
  });

  locked('sends Object Lock retention with each object when asked to, with the checksum S3 demands for it', async ({ vault }) => {
    const t = await tenant(vault, 2);
    const line = (await vault.api.services.auditCheckpoints.checkpoint(t.id))!;
    const key = checkpointObjectKey('locked', t.id, line.seq);
    const put = received.filter((r) => r.method === 'PUT' && r.url.includes(key));
    expect(put).toHaveLength(1);
    const h = put[0]!.headers;
    expect(h['x-amz-object-lock-mode']).toBe('GOVERNANCE');
    const until = Date.parse(String(h['x-amz-object-lock-retain-until-date']));
    expect(Math.abs(until - (Date.now() + 2 * 86_400_000))).toBeLessThan(60_000);
    const body = (await object(key))!;
    expect(h['content-md5']).toBe(createHash('md5').update(body).digest('base64'));
    expect(parseCheckpoint(body)).toEqual(line);
  });
});

describe('checkpoints elected through the database', () => {
  it('keeps how far each trail is checkpointed in the database, and signs a head once', async ({ vault }) => {
    const t = await tenant(vault);
    expect(Number((await markOf(vault, t.id)).seq)).toBe(0);
    const line = await vault.api.services.auditCheckpoints.checkpoint(t.id);
    expect(line).toMatchObject({ tenant: t.id, seq: await headOf(vault, t.id) });
    expect(await markOf(vault, t.id)).toMatchObject({ seq: String(line!.seq), link: Buffer.from(line!.link, 'hex') });
    // Another pass (this replica's or another's) finds the head checkpointed.
    expect(await vault.api.services.auditCheckpoints.checkpoint(t.id)).toBeNull();
    await vault.api.services.auditCheckpoints.checkpointAll();
    expect(fileLines(checkpointDir, t.id).map((c) => c.seq)).toEqual([line!.seq]);
  });

  it('never skips a head because the database says it is checkpointed when it is not', async ({ vault }) => {
    const t = await tenant(vault, 2);
    const first = await vault.api.services.auditCheckpoints.checkpoint(t.id);
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    // Moved ahead by hand, as a way to hold checkpoints back: the head differs, so it is signed.
    await sql(vault, `update tenant_${t.id}.audit_checkpointed set seq = 1000000000`);
    const second = await vault.api.services.auditCheckpoints.checkpoint(t.id);
    expect(second!.seq).toBe(first!.seq + 1);
    // The right sequence number with another link: signed again, not trusted.
    await sql(vault, `update tenant_${t.id}.audit_checkpointed set link = $1`, [randomBytes(32)]);
    expect((await vault.api.services.auditCheckpoints.checkpoint(t.id))!.seq).toBe(second!.seq);
  });

  it.skipIf(!usingPostgres())('signs nothing while another replica holds the tenant’s checkpoint lock (PostgreSQL only: the embedded database belongs to one process)', async ({ vault }) => {
    const t = await tenant(vault, 2);
    const other = new pg.Client({ connectionString: vault.api.services.config.databaseUrl });
    await other.connect();
    try {
      await other.query('select pg_advisory_lock(hashtext($1))', [checkpointLock(t.id)]);
      expect(await vault.api.services.auditCheckpoints.checkpoint(t.id)).toBeNull();
      await vault.api.services.auditCheckpoints.checkpointAll();
      expect(fileLines(checkpointDir, t.id)).toEqual([]);
      expect(Number((await markOf(vault, t.id)).seq)).toBe(0);
    } finally {
      await other.end();
    }
    expect((await vault.api.services.auditCheckpoints.checkpoint(t.id))!.seq).toBe(await headOf(vault, t.id));
  });
});

describe('a checkpoint directory that cannot be written', () => {
  blocked('logs and counts each failure on every tick, never fails a call, and writes the checkpoint once it can', async ({ vault }) => {
    const error = vi.spyOn(vault.api.services.log, 'error');
    const info = vi.spyOn(vault.api.services.log, 'info');
    const before = await failures('dir');
    const t = await tenant(vault, 3);
    // Two ticks that fail, one after the other.
    await vi.waitFor(async () => expect(await failures('dir')).toBeGreaterThanOrEqual(before + 2), { timeout: 15_000, interval: 200 });
    expect(logged(error, 'audit checkpoint not written: tried again at the next tick').filter((l) => l.tenantId === t.id)[0]).toMatchObject({
      target: 'dir',
      err: { code: 'ENOTDIR' },
    });
    expect((await vault.call('UserGet', { mode: 'token', identity: randomUUID() }, t.admin)).status).toBe(404);
    expect(Number((await markOf(vault, t.id)).seq)).toBe(0);
    // The directory becomes writable: the next tick writes it.
    rmSync(blocker);
    mkdirSync(blocker);
    const dir = join(blocker, 'checkpoints');
    await vi.waitFor(async () => expect(Number((await markOf(vault, t.id)).seq)).toBe(await headOf(vault, t.id)), { timeout: 15_000, interval: 200 });
    const lines = fileLines(dir, t.id);
    expect(lines.map((c) => c.seq)).toEqual([await headOf(vault, t.id)]);
    // Every log line of a checkpoint of this tenant names a distinct head: a retry does not sign again.
    const seqs = logged(info, 'audit checkpoint').filter((l) => l.checkpoint?.tenant === t.id).map((l) => l.checkpoint.seq as number);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toContain(lines[0]!.seq);
  });
});
