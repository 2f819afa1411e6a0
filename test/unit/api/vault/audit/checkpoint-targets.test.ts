// Names of checkpoints in a bucket, and the `s3://` form the auditor's command takes: what the vault writes is where
// the command looks, and a listing comes back in chain order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkpointObjectKey, normalPrefix, tenantCheckpointPrefix } from '../../../../../api/vault/audit/checkpoint-targets.js';
import { parseBucketUrl } from '../../../../../api/audit-verify.js';

describe('checkpoint object keys', () => {
  it('list in sequence order: zero-padded to 20 digits, every safe integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (a, b) => {
        const [ka, kb] = [checkpointObjectKey('p', 7, a), checkpointObjectKey('p', 7, b)];
        expect(ka < kb).toBe(a < b);
      }),
    );
    expect(checkpointObjectKey('', 2, 1234)).toBe('tenant-2/00000000000000001234.json');
  });

  it('sit under the tenant’s prefix, whatever slashes the prefix was given with, and no other tenant’s', () => {
    for (const given of ['audit/ckpt', 'audit/ckpt/', '/audit/ckpt', '//audit/ckpt//']) {
      expect(normalPrefix(given)).toBe('audit/ckpt/');
      expect(checkpointObjectKey(given, 3, 9).startsWith(tenantCheckpointPrefix('audit/ckpt', 3))).toBe(true);
    }
    expect(normalPrefix('')).toBe('');
    // tenant-1/ is not a prefix of tenant-12's keys.
    expect(checkpointObjectKey('', 12, 1).startsWith(tenantCheckpointPrefix('', 1))).toBe(false);
  });

  it('are found where the command looks for s3://bucket/prefix', () => {
    expect(parseBucketUrl('s3://audit-bucket/audit/ckpt')).toEqual({ bucket: 'audit-bucket', prefix: 'audit/ckpt' });
    expect(parseBucketUrl('s3://audit-bucket')).toEqual({ bucket: 'audit-bucket', prefix: '' });
    expect(parseBucketUrl('s3://audit-bucket/')).toEqual({ bucket: 'audit-bucket', prefix: '' });
    expect(parseBucketUrl('./checkpoints')).toBeNull();
    expect(parseBucketUrl('/var/s3://x')).toBeNull();
    const { bucket, prefix } = parseBucketUrl('s3://b/strongroom/')!;
    expect(bucket).toBe('b');
    expect(checkpointObjectKey(prefix, 4, 5).startsWith(tenantCheckpointPrefix('strongroom', 4))).toBe(true);
  });
});
