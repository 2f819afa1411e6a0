// Where sealed file content lives: a local directory or an S3-compatible bucket, behind one small interface.
// Keys are opaque to the stores: `t<tenant id>/<2 hex>/<random uuid>`, naming neither the user nor the file.
import { randomUUID } from 'node:crypto';
import { LocalBlobStore } from './local.js';
import { S3BlobStore, type S3Settings } from './s3.js';

export interface BlobObject {
  key: string;
  /** Last change, Unix seconds. */
  modified: number;
}

export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** Durable once it resolves: what a committed file row points at must survive a crash. */
  put(key: string, body: Buffer): Promise<void>;
  /** null when there is no such object. */
  get(key: string): Promise<Buffer | null>;
  /** Deleting a missing object is not an error: deletes are retried after crashes. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, in no particular order. */
  list(prefix: string): AsyncIterable<BlobObject>;
  close(): void;
}

export type BlobStoreSettings = { store: 'local'; dir: string } | ({ store: 's3' } & S3Settings);

export function createBlobStore(settings: BlobStoreSettings): BlobStore {
  return settings.store === 's3' ? new S3BlobStore(settings) : new LocalBlobStore(settings.dir);
}

/** A new key for a tenant's object: random, so it says nothing about whose file it is. */
export function newObjectKey(tenantId: number): string {
  const id = randomUUID();
  return `t${tenantId}/${id.slice(0, 2)}/${id}`;
}

/** Keys this vault makes, and the temporary names the local store writes them under. Nothing else is ever deleted. */
const OWN_KEY = /^t(\d+)\/[0-9a-f]{2}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.[0-9a-f]{16}\.tmp)?$/;

/** The tenant a key of ours belongs to; undefined for keys this vault did not make. */
export function tenantOfKey(key: string): number | undefined {
  const m = OWN_KEY.exec(key);
  return m ? Number(m[1]) : undefined;
}
