// The api's settings: the root token from the environment or from a mounted file, and the errors naming them.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../api/config.js';

describe('the root token', () => {
  const file = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'sr-cfg-')), 'token');
    writeFileSync(path, text);
    return path;
  };

  it('is read from STRONGROOM_ROOT_TOKEN_FILE, trimmed, as a Secret mounts it', () => {
    const token = randomUUID();
    expect(loadConfig({ STRONGROOM_ROOT_TOKEN_FILE: file(`${token}\n`) }).rootToken).toBe(token);
    expect(loadConfig({ STRONGROOM_ROOT_TOKEN: token }).rootToken).toBe(token);
    expect(loadConfig({}).rootToken).toBeUndefined();
  });

  it('is refused, naming the setting, when unreadable, not a UUID, or given twice', () => {
    expect(() => loadConfig({ STRONGROOM_ROOT_TOKEN_FILE: '/nonexistent/token' })).toThrow(/STRONGROOM_ROOT_TOKEN_FILE .* cannot be read: ENOENT/);
    expect(() => loadConfig({ STRONGROOM_ROOT_TOKEN_FILE: file('not-a-token') })).toThrow(/STRONGROOM_ROOT_TOKEN_FILE .*must hold a UUID/);
    expect(() => loadConfig({ STRONGROOM_ROOT_TOKEN: randomUUID(), STRONGROOM_ROOT_TOKEN_FILE: file(randomUUID()) })).toThrow(/not both/);
  });
});

describe('the audit checkpoint bucket', () => {
  it('is off without a bucket, and takes the file store’s credentials style with one', () => {
    expect(loadConfig({}).audit.checkpointS3).toBeUndefined();
    const s3 = loadConfig({
      STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET: 'audit',
      STRONGROOM_AUDIT_CHECKPOINTS_S3_PREFIX: 'strongroom/',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_REGION: 'eu-west-3',
    }).audit.checkpointS3;
    expect(s3).toMatchObject({
      bucket: 'audit',
      prefix: 'strongroom/',
      region: 'eu-west-3',
      forcePathStyle: false,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      objectLock: 'auto',
      lockMode: 'COMPLIANCE',
      retentionDays: 365,
    });
  });

  it('takes keys of its own over the file store’s, and refuses half a pair', () => {
    const s3 = loadConfig({
      STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET: 'audit',
      STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID: 'audit-id',
      STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY: 'audit-secret',
      AWS_ACCESS_KEY_ID: 'files-id',
      AWS_SECRET_ACCESS_KEY: 'files-secret',
    }).audit.checkpointS3;
    expect(s3!.credentials).toEqual({ accessKeyId: 'audit-id', secretAccessKey: 'audit-secret' });
    expect(() => loadConfig({ STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET: 'a', STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID: 'x' })).toThrow(/STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY/);
  });

  it('is refused, naming the setting, with a lock setting it does not know', () => {
    expect(() => loadConfig({ STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET: 'a', STRONGROOM_AUDIT_CHECKPOINTS_S3_OBJECT_LOCK: 'maybe' })).toThrow(/STRONGROOM_AUDIT_CHECKPOINTS_S3_OBJECT_LOCK/);
    expect(() => loadConfig({ STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET: 'a', STRONGROOM_AUDIT_CHECKPOINTS_S3_RETENTION_DAYS: '0' })).toThrow(/STRONGROOM_AUDIT_CHECKPOINTS_S3_RETENTION_DAYS/);
    expect(() => loadConfig({ STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET: 'a', STRONGROOM_AUDIT_CHECKPOINTS_S3_PREFIX: 'a b' })).toThrow(/STRONGROOM_AUDIT_CHECKPOINTS_S3_PREFIX/);
  });
});
