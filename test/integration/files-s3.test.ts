// The S3 file store against a real S3 server (s3rver on loopback, in a temporary directory): objects land in the
// bucket sealed, under keys that name nobody, and go when their files or users do.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { nowSeconds } from '../../api/vault/durations.js';

interface S3rverServer {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
// s3rver ships no types.
const S3rver = createRequire(import.meta.url)('s3rver') as new (opts: Record<string, unknown>) => S3rverServer;

const BUCKET = 'strongroom-files';
const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** The file's S3 server, and a client of the test's own that looks into the bucket behind the vault's back. */
interface S3Store {
  endpoint: string;
  client: S3Client;
  /** Stops the server, as when the store goes down. */
  stop(): Promise<void>;
}

const it = vaultTest()
  .extend('s3', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = mkdtempSync(join(tmpdir(), 'sr-s3-'));
    let server: S3rverServer | undefined = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: BUCKET }] });
    const { port } = await server.run();
    const endpoint = `http://127.0.0.1:${port}`;
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const stop = async () => {
      const running = server;
      server = undefined;
      await running?.close();
    };
    onCleanup(async () => {
      client.destroy();
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });
    return { endpoint, client, stop } satisfies S3Store;
  })
  .extend('vaultOptions', { scope: 'file' }, async ({ s3 }) => ({
    env: {
      STRONGROOM_FILE_STORE: 's3',
      STRONGROOM_S3_BUCKET: BUCKET,
      STRONGROOM_S3_REGION: 'us-east-1',
      STRONGROOM_S3_ENDPOINT: s3.endpoint,
      STRONGROOM_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
  }));

const b64 = (b: Buffer) => b.toString('base64');

async function keys(s3: S3Store): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
    out.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out.sort();
}

async function object(s3: S3Store, key: string): Promise<Buffer> {
  const res = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

async function user(vault: TestVault) {
  const token = (await vault.call('UserCreate', { profile: buildProfile() })).body.token as string;
  return { token, ref: { mode: 'token', identity: token } };
}

async function keyOf(vault: TestVault, fileuuid: string): Promise<string> {
  const [row] = await vault.api.services.db.orm.em.getConnection().execute('select object_key from tenant_1.files where fileuuid = ?', [fileuuid]);
  return row!.object_key as string;
}

describe('the S3 file store', () => {
  it('stores sealed objects under keys that name neither user nor file, and reads them back', async ({ vault, s3 }) => {
    const { token, ref } = await user(vault);
    const marker = `medical-record-of-${token}`;
    // A few MiB of text around a marker: large enough to cross the SDK's single-request paths, plain enough to find.
    const content = Buffer.from(`${marker}\n${'all of this is plaintext\n'.repeat(150_000)}${marker}\n`);
    const before = await keys(s3);
    const created = await vault.call('FileCreate', { ...ref, filename: 'ada-lovelace-diagnosis.txt', filedata: b64(content), tags: ['medical'] });
    expect(created.status).toBe(200);
    const added = (await keys(s3)).filter((k) => !before.includes(k));
    expect(added).toEqual([await keyOf(vault, created.body.fileuuid)]);
    const [key] = added as [string];
    expect(key).toMatch(/^t1\/[0-9a-f]{2}\/[0-9a-f-]{36}$/);
    for (const secret of [token, created.body.fileuuid, 'ada', 'lovelace', 'diagnosis']) expect(key).not.toContain(secret);

    const stored = await object(s3, key);
    expect(stored.length).toBeGreaterThan(content.length);
    expect(stored.includes(Buffer.from(marker))).toBe(false);
    expect(stored.includes(Buffer.from('plaintext'))).toBe(false);
    expect(stored.includes(Buffer.from('diagnosis'))).toBe(false);

    const got = await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid });
    expect(got.body).toMatchObject({ filename: 'ada-lovelace-diagnosis.txt', size: content.length, mimetype: 'text/plain; charset=utf-8', tags: ['medical'] });
    expect(Buffer.from(got.body.filedata, 'base64').equals(content)).toBe(true);
    const raw = await fetch(`${vault.url}/v2/FileGet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bunker-token': vault.rootToken },
      body: JSON.stringify({ ...ref, filename: 'ada-lovelace-diagnosis.txt', raw: true }),
    });
    expect(raw.headers.get('content-disposition')).toBe(`attachment; filename="ada-lovelace-diagnosis.txt"; filename*=UTF-8''ada-lovelace-diagnosis.txt`);
    expect(Buffer.from(await raw.arrayBuffer()).equals(content)).toBe(true);
  });

  it('round-trips random binary content exactly', async ({ vault }) => {
    const { ref } = await user(vault);
    const content = randomBytes(3 * 1024 * 1024 + 17);
    const created = await vault.call('FileCreate', { ...ref, filename: 'blob.bin', filedata: b64(content) });
    const got = await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid });
    expect(Buffer.from(got.body.filedata, 'base64').equals(content)).toBe(true);
  });

  it('writes no second object for the same content of the same user', async ({ vault, s3 }) => {
    const { ref } = await user(vault);
    const content = randomBytes(2048);
    await vault.call('FileCreate', { ...ref, filename: 'one', filedata: b64(content) });
    const count = (await keys(s3)).length;
    const again = await vault.call('FileCreate', { ...ref, filename: 'two', filedata: b64(content) });
    expect(again.body.duplicate).toBe(true);
    expect((await keys(s3)).length).toBe(count);
  });

  it('deletes the object with its file, and every object of a deleted user', async ({ vault, s3 }) => {
    const { ref } = await user(vault);
    const one = await vault.call('FileCreate', { ...ref, filename: 'one', filedata: b64(randomBytes(100)) });
    const two = await vault.call('FileCreate', { ...ref, filename: 'two', filedata: b64(randomBytes(100)) });
    const [k1, k2] = [await keyOf(vault, one.body.fileuuid), await keyOf(vault, two.body.fileuuid)];
    expect(await keys(s3)).toEqual(expect.arrayContaining([k1, k2]));
    expect((await vault.call('FileDelete', { ...ref, fileuuid: one.body.fileuuid })).status).toBe(200);
    await expect.poll(async () => (await keys(s3)).includes(k1)).toBe(false);
    expect((await keys(s3)).includes(k2)).toBe(true);
    expect((await vault.call('UserDelete', ref)).status).toBe(200);
    await expect.poll(async () => (await keys(s3)).includes(k2)).toBe(false);
  });

  it('answers 404 when the object vanished under a file, and sweeps objects no file names', async ({ vault, s3 }) => {
    const { ref } = await user(vault);
    const created = await vault.call('FileCreate', { ...ref, filename: 'v', filedata: b64(randomBytes(64)) });
    await s3.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: await keyOf(vault, created.body.fileuuid) }));
    const res = await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('The file record was not found');

    const kept = await vault.call('FileCreate', { ...ref, filename: 'kept', filedata: b64(randomBytes(64)) });
    const keptKey = await keyOf(vault, kept.body.fileuuid);
    const orphan = `t1/ab/ab${randomUUID().slice(2)}`;
    const foreign = 'someone-else/report.pdf';
    for (const key of [orphan, foreign]) await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: randomBytes(32) }));
    // Everything counts as old enough here; only what no file names, and only keys of ours, may go.
    expect(await vault.api.services.files.removeOrphans(nowSeconds() + 60)).toBe(1);
    const left = await keys(s3);
    expect(left).not.toContain(orphan);
    expect(left).toEqual(expect.arrayContaining([foreign, keptKey]));
  });

  it('answers 503, never 500, and keeps no file when the store is down', async ({ vault, s3 }) => {
    const { ref } = await user(vault);
    const stored = await vault.call('FileCreate', { ...ref, filename: 'before', filedata: b64(randomBytes(64)) });
    await s3.stop();
    const read = await vault.call('FileGet', { ...ref, fileuuid: stored.body.fileuuid });
    expect(read.status).toBe(503);
    expect(read.body).toEqual({ status: 'error', message: 'The file store is unavailable' });
    const write = await vault.call('FileCreate', { ...ref, filename: 'during', filedata: b64(randomBytes(64)) });
    expect(write.status).toBe(503);
    const list = await vault.call('FileListUserFiles', ref);
    expect(list.body.files.map((f: { filename: string }) => f.filename)).toEqual(['before']);
  });
});
