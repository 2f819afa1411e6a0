// Sealed file content in an S3-compatible bucket (AWS, MinIO, Ceph) through the AWS SDK v3.
import { createHash } from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  GetObjectLockConfigurationCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { BlobObject, BlobStore } from './index.js';

/** How an object is written beyond its bytes: its type, and S3 Object Lock retention. */
export interface PutOptions {
  contentType?: string;
  /** Retained (neither deleted nor overwritten in place) until then, in this mode. */
  retain?: { mode: 'COMPLIANCE' | 'GOVERNANCE'; until: Date } | undefined;
}

/** Whether the bucket has Object Lock on: `reason` says why not (the store's own error name, or its absence). */
export type ObjectLockState = { enabled: true } | { enabled: false; reason: string };

export interface S3Settings {
  bucket: string;
  region: string;
  /** For S3-compatible services; AWS itself needs none. */
  endpoint?: string | undefined;
  /** `bucket` in the path instead of the host name (MinIO, Ceph, s3rver). */
  forcePathStyle: boolean;
  /** Explicit keys; when absent the SDK's standard provider chain finds them (env, profile, web identity, IMDS). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined } | undefined;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      // Flexible checksums only where S3 demands them: some S3-compatible servers store checksummed uploads
      // corrupted. The content is AES-GCM sealed, so a damaged object fails to open rather than read wrong.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Buffer, options: PutOptions = {}): Promise<void> {
    const { retain } = options;
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentLength: body.length,
        ContentType: options.contentType ?? 'application/octet-stream',
        // S3 refuses an Object Lock write without an integrity header; MD5 is the one every compatible store knows.
        ...(retain
          ? { ObjectLockMode: retain.mode, ObjectLockRetainUntilDate: retain.until, ContentMD5: createHash('md5').update(body).digest('base64') }
          : {}),
      }),
    );
  }

  /**
   * Whether the bucket has Object Lock enabled. A store that does not implement it (or a bucket made without it)
   * answers with an S3 error, which is the answer; a store that cannot be reached throws.
   */
  async objectLock(): Promise<ObjectLockState> {
    try {
      const res = await this.client.send(new GetObjectLockConfigurationCommand({ Bucket: this.bucket }));
      return res.ObjectLockConfiguration?.ObjectLockEnabled === 'Enabled' ? { enabled: true } : { enabled: false, reason: 'not enabled on the bucket' };
    } catch (err) {
      if (err instanceof S3ServiceException && err.$metadata?.httpStatusCode !== undefined && err.$metadata.httpStatusCode < 500) return { enabled: false, reason: err.name };
      if (err instanceof S3ServiceException && err.name === 'NotImplemented') return { enabled: false, reason: err.name };
      throw err;
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const bytes = await res.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  async *list(prefix: string): AsyncIterable<BlobObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        if (o.Key) yield { key: o.Key, modified: Math.floor((o.LastModified?.getTime() ?? Date.now()) / 1000) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  close(): void {
    this.client.destroy();
  }
}

function isMissing(err: unknown): boolean {
  if (err instanceof S3ServiceException) return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
  return false;
}
