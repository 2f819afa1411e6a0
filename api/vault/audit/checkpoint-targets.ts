// Where signed audit checkpoints are kept besides the log: a directory (one `tenant-<id>.jsonl` per tenant, a line
// per checkpoint) and an S3 bucket (one object per checkpoint, under Object Lock retention where the bucket has it).
// Each target writes a line and reads a tenant's lines back; the auditor's command reads the same places.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { S3BlobStore, type PutOptions, type S3Settings } from '../../store/blobs/s3.js';
import { parseCheckpoint, type CheckpointLine } from '../../../proto/audit-checkpoint.js';

export interface CheckpointTarget {
  /** The metric label and log field: `dir` or `s3`. */
  readonly name: 'dir' | 's3';
  /** Durable once it resolves; rejects when the line could not be kept (tried again at the next tick). */
  write(line: CheckpointLine): Promise<void>;
  /** Every checkpoint line of the tenant kept here, unchecked (the caller verifies signatures). */
  read(tenantId: number): Promise<CheckpointLine[]>;
  close(): void;
}

/** The file of a tenant's checkpoints in a checkpoint directory. */
export function checkpointFile(dir: string, tenantId: number): string {
  return join(dir, `tenant-${tenantId}.jsonl`);
}

export class DirectoryTarget implements CheckpointTarget {
  readonly name = 'dir';

  constructor(private readonly dir: string) {}

  async write(line: CheckpointLine): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await appendFile(checkpointFile(this.dir, line.tenant), `${JSON.stringify(line)}\n`);
  }

  async read(tenantId: number): Promise<CheckpointLine[]> {
    let text = '';
    try {
      text = await readFile(checkpointFile(this.dir, tenantId), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return text.split('\n').map(parseCheckpoint).filter((c): c is CheckpointLine => c !== null && c.tenant === tenantId);
  }

  close(): void {}
}

/** A key prefix as given (`audit/`, `/audit`, `audit`): empty, or ending in one `/`. */
export function normalPrefix(prefix: string): string {
  const p = prefix.replace(/^\/+|\/+$/g, '');
  return p ? `${p}/` : '';
}

/** Where a tenant's checkpoints lie in a bucket. */
export function tenantCheckpointPrefix(prefix: string, tenantId: number): string {
  return `${normalPrefix(prefix)}tenant-${tenantId}/`;
}

/** One checkpoint's object key: sequence numbers zero-padded, so a listing is in chain order. */
export function checkpointObjectKey(prefix: string, tenantId: number, seq: number): string {
  return `${tenantCheckpointPrefix(prefix, tenantId)}${String(seq).padStart(20, '0')}.json`;
}

/** Every checkpoint of the tenant in the bucket (objects that hold none are skipped). */
export async function readBucketCheckpoints(store: S3BlobStore, prefix: string, tenantId: number): Promise<CheckpointLine[]> {
  const out: CheckpointLine[] = [];
  for await (const o of store.list(tenantCheckpointPrefix(prefix, tenantId))) {
    const body = await store.get(o.key);
    const c = body && parseCheckpoint(body.toString('utf8'));
    if (c && c.tenant === tenantId) out.push(c);
  }
  return out;
}

export interface S3CheckpointSettings extends S3Settings {
  prefix: string;
  objectLock: 'auto' | 'on' | 'off';
  lockMode: 'COMPLIANCE' | 'GOVERNANCE';
  retentionDays: number;
}

export class S3Target implements CheckpointTarget {
  readonly name = 's3';
  private readonly store: S3BlobStore;
  /** Learnt from the bucket once (`auto`); unknown until the store answers. */
  private lockEnabled: boolean | undefined;

  constructor(
    private readonly settings: S3CheckpointSettings,
    private readonly log: Logger,
  ) {
    this.store = new S3BlobStore(settings);
  }

  async write(line: CheckpointLine): Promise<void> {
    const body = Buffer.from(`${JSON.stringify(line)}\n`);
    await this.store.put(checkpointObjectKey(this.settings.prefix, line.tenant, line.seq), body, {
      contentType: 'application/json',
      retain: await this.retention(),
    });
  }

  read(tenantId: number): Promise<CheckpointLine[]> {
    return readBucketCheckpoints(this.store, this.settings.prefix, tenantId);
  }

  close(): void {
    this.store.close();
  }

  private async retention(): Promise<PutOptions['retain']> {
    const { objectLock, lockMode, retentionDays, bucket } = this.settings;
    if (objectLock === 'off') return undefined;
    if (objectLock === 'auto' && this.lockEnabled === undefined) {
      const state = await this.store.objectLock();
      this.lockEnabled = state.enabled;
      if (state.enabled) this.log.info({ bucket, mode: lockMode, retentionDays }, 'audit checkpoints are written to S3 under Object Lock retention');
      else
        this.log.warn(
          { bucket, reason: state.reason },
          'audit checkpoints are written to S3 without Object Lock: the bucket or the store does not support it, so whoever may write the bucket may delete or replace them',
        );
    }
    if (objectLock === 'auto' && !this.lockEnabled) return undefined;
    return { mode: lockMode, until: new Date(Date.now() + retentionDays * 86_400_000) };
  }
}
