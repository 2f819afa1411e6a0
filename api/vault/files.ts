// Per-user files: content and name sealed through the tokenizer, content kept in the blob store under a key that
// names neither user nor file, metadata (size, type, tags, keyed hashes) in the tenant's schema. An object is
// deleted only after the removal of its row has committed, so no acknowledged file is ever lost; and nothing
// but sealed bytes ever reaches the store, so an object left behind by a crash holds no plaintext.
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { TokenizerClient } from '../tokenizer-client.js';
import type { Database } from '../store/database.js';
import type { FileRow } from '../store/files.js';
import { newObjectKey, tenantOfKey, type BlobStore } from '../store/blobs/index.js';
import { notFound, UnavailableError } from '../errors.js';
import { expiresAt } from './durations.js';
import type { Expiry } from './users.js';
import type { Scope } from './scope.js';
import type { SubjectKeys } from './subject-keys.js';

export const FILE_NOT_FOUND = 'The file record was not found';

const CONTENT_TABLE = 'files';
const NAME_TABLE = 'file_names';
/** Trashed objects deleted per round, and at once. */
const DRAIN_BATCH = 500;
const DRAIN_PARALLEL = 8;
/** Objects younger than this are never taken for orphans: their row may still be on its way to a commit. */
export const ORPHAN_GRACE_SECONDS = 3600;
const ORPHAN_BATCH = 1000;

export interface NewFile {
  filename: string;
  content: Buffer;
  mimetype: string;
  tags: string[];
  expiry: Expiry;
}

/** File metadata as FileListUserFiles and BulkListFilesByTag show it. */
export interface FileInfo {
  fileuuid: string;
  filename: string;
  mimetype: string;
  size: number;
  doublehash: string;
  creationtime: number;
  tags: string[];
}

// The values hashed under the tenant's dedupe key: the user's token inside, so equal content or names of two
// users (or of two tenants, whose keys differ) never hash alike.
const contentValue = (token: string, sha256: string) => `file\0${token}\0${sha256}`;
const nameValue = (token: string, filename: string) => `filename\0${token}\0${filename}`;
// The AAD names tenant (the tokenizer adds it), user and file: a sealed object moved elsewhere fails to open.
const rowId = (token: string, fileuuid: string) => `${token}:${fileuuid}`;

const isLive = (row: FileRow, now: number) => row.expiresAt === null || row.expiresAt > now;

/** Blob store failures are the storage's, not the client's: 503, with the cause in the log only. */
function unavailable(): UnavailableError {
  return new UnavailableError('The file store is unavailable');
}

export class Files {
  /** Per-tenant drains running now, and whether another round was asked for meanwhile. */
  private readonly draining = new Map<number, { again: boolean; done: Promise<void> }>();
  private lastOrphanScan = 0;

  private readonly tokenizer: TokenizerClient;
  private readonly db: Database;
  readonly blobs: BlobStore;
  private readonly log: Logger;
  private readonly keys: SubjectKeys;

  constructor(deps: { tokenizer: TokenizerClient; db: Database; blobs: BlobStore; log: Logger; keys: SubjectKeys }, private readonly opts: { orphanSeconds: number }) {
    ({ tokenizer: this.tokenizer, db: this.db, blobs: this.blobs, log: this.log, keys: this.keys } = deps);
  }

  /**
   * Stores a file for a locked user, or answers the user's existing file with the same content. The object is
   * written before its row; if the transaction then fails, the object is deleted again.
   */
  async create(scope: Scope, token: string, file: NewFile): Promise<{ fileuuid: string; duplicate: boolean; tags: string[] }> {
    const fileuuid = randomUUID();
    const sha256 = createHash('sha256').update(file.content).digest('hex');
    // Name and content are the person's: sealed under their key, they go with it.
    const key = await this.keys.key(scope, token);
    const small = await this.tokenizer.run(scope.tenantId, {
      hash: [
        { kind: 'DEDUPE', value: contentValue(token, sha256) },
        { kind: 'DEDUPE', value: nameValue(token, file.filename) },
      ],
      seal: [{ table: NAME_TABLE, rowId: rowId(token, fileuuid), plaintext: Buffer.from(file.filename, 'utf8'), key }],
    });
    const [contentHash, nameHash] = small.hash as [Buffer, Buffer];
    const store = scope.stores.files;
    const existing = await store.byContent(token, contentHash);
    if (existing && isLive(existing, scope.now)) return { fileuuid: existing.fileuuid, duplicate: true, tags: existing.tags };
    if (existing) {
      // An expired copy the sweeper has not reached yet gives way to the new upload.
      await store.removeRow(existing.fileuuid);
      this.reapAfterCommit(scope);
    }
    // Large content travels alone: the tokenizer client merges only small calls.
    const [sealed] = (await this.tokenizer.run(scope.tenantId, { seal: [{ table: CONTENT_TABLE, rowId: rowId(token, fileuuid), plaintext: file.content, key }] }))
      .sealed as [Buffer];
    const objectKey = newObjectKey(scope.tenantId);
    scope.stores.sql.onEnd('rollback', () => {
      this.blobs.delete(objectKey).catch((err: unknown) => this.logStoreError(err, 'deleting the object of a failed upload failed'));
    });
    await this.blobs.put(objectKey, sealed).catch((err: unknown) => {
      this.logStoreError(err, 'storing a file failed');
      throw unavailable();
    });
    const { finaltime, slidingtime } = file.expiry;
    await store.insert({
      fileuuid,
      userToken: token,
      objectKey,
      nameSealed: small.sealed[0]!,
      nameHash,
      mimetype: file.mimetype,
      size: file.content.length,
      contentHash,
      tags: file.tags,
      created: scope.now,
      finaltime,
      slidingtime,
      expiresAt: expiresAt(finaltime, slidingtime, scope.now),
    });
    return { fileuuid, duplicate: false, tags: file.tags };
  }

  /** The file owner's key; a file whose person is erased is as gone as they are. */
  private async personKey(scope: Scope, token: string) {
    const wrapped = (await this.keys.of(scope, [token])).get(token);
    if (!wrapped) throw notFound(FILE_NOT_FOUND);
    return { subject: token, wrapped };
  }

  /** The user's live file by uuid, else the newest with the name; 404 when there is none. */
  async find(scope: Scope, token: string, by: { fileuuid?: string | undefined; filename?: string | undefined }): Promise<FileRow> {
    const store = scope.stores.files;
    let row: FileRow | null;
    if (by.fileuuid !== undefined) row = await store.byUuid(token, by.fileuuid.toLowerCase(), scope.now);
    else {
      const [nameHash] = (await this.tokenizer.run(scope.tenantId, { hash: [{ kind: 'DEDUPE', value: nameValue(token, by.filename!) }] })).hash as [Buffer];
      row = await store.newestByName(token, nameHash, scope.now);
    }
    if (!row) throw notFound(FILE_NOT_FOUND);
    return row;
  }

  /** The file's name and content, opened in one tokenizer call; a read restarts its sliding window. */
  async read(scope: Scope, row: FileRow): Promise<{ filename: string; content: Buffer }> {
    const sealed = await this.blobs.get(row.objectKey).catch((err: unknown) => {
      this.logStoreError(err, 'reading a file failed');
      throw unavailable();
    });
    // Deleted between reading the row and the object: the file is gone, as a moment later it would be.
    if (!sealed) throw notFound(FILE_NOT_FOUND);
    const id = rowId(row.userToken, row.fileuuid);
    const key = await this.personKey(scope, row.userToken);
    const { opened } = await this.tokenizer.run(scope.tenantId, {
      open: [
        { table: NAME_TABLE, rowId: id, ciphertext: row.nameSealed, key },
        { table: CONTENT_TABLE, rowId: id, ciphertext: sealed, key },
      ],
    });
    if (row.slidingtime) {
      const next = expiresAt(row.finaltime, row.slidingtime, scope.now);
      // Moved only by a minute or more, as users are, to spare writes on busy files.
      if (next !== null && (row.expiresAt === null || next - row.expiresAt >= 60)) await scope.stores.files.touch(row.fileuuid, next);
    }
    return { filename: opened[0]!.toString('utf8'), content: opened[1]! };
  }

  /** Metadata of files, their names opened in one tokenizer call. */
  async present(scope: Scope, rows: FileRow[]): Promise<FileInfo[]> {
    const keys = await this.keys.of(scope, [...new Set(rows.map((r) => r.userToken))]);
    // Files of a person whose key is gone are erased with them: listed nowhere.
    rows = rows.filter((r) => keys.get(r.userToken));
    if (!rows.length) return [];
    const { opened } = await this.tokenizer.run(scope.tenantId, {
      open: rows.map((r) => ({
        table: NAME_TABLE,
        rowId: rowId(r.userToken, r.fileuuid),
        ciphertext: r.nameSealed,
        key: { subject: r.userToken, wrapped: keys.get(r.userToken)! },
      })),
    });
    return rows.map((r, i) => ({
      fileuuid: r.fileuuid,
      filename: opened[i]!.toString('utf8'),
      mimetype: r.mimetype,
      size: r.size,
      doublehash: r.contentHash.toString('hex'),
      creationtime: r.created,
      tags: r.tags,
    }));
  }

  /** Removes the user's file; its object is deleted once the transaction commits. 404 when there is none. */
  async remove(scope: Scope, token: string, fileuuid: string): Promise<void> {
    if (!(await scope.stores.files.remove(token, fileuuid.toLowerCase(), scope.now))) throw notFound(FILE_NOT_FOUND);
    this.reapAfterCommit(scope);
  }

  async replaceTags(scope: Scope, token: string, fileuuid: string, tags: string[]): Promise<void> {
    if (!(await scope.stores.files.setTags(token, fileuuid.toLowerCase(), tags, scope.now))) throw notFound(FILE_NOT_FOUND);
  }

  /**
   * Rows of files were (or may have been) removed in the scope's transaction, by a file operation or with their
   * user: once it commits, the trashed objects are deleted (at once outside a transaction; drains asked for
   * together coalesce). Nothing happens on rollback: the rows stay.
   */
  reapAfterCommit(scope: Pick<Scope, 'stores' | 'tenantId'>): void {
    const { stores, tenantId } = scope;
    if (!stores.sql.onEnd('commit', () => this.drainSoon(tenantId))) this.drainSoon(tenantId);
  }

  /** Starts a drain of the tenant's trash in the background (after the current one, if one runs). */
  drainSoon(tenantId: number): void {
    const running = this.draining.get(tenantId);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false, done: Promise.resolve() };
    this.draining.set(tenantId, state);
    state.done = (async () => {
      try {
        do {
          state.again = false;
          await this.drain(tenantId);
        } while (state.again);
      } catch (err) {
        // The sweeper drains the trash again on its next pass.
        this.logStoreError(err, 'deleting removed files failed');
      } finally {
        this.draining.delete(tenantId);
      }
    })();
  }

  /** Deletes the objects of committed removals and forgets them; returns how many went. */
  async drain(tenantId: number): Promise<number> {
    const store = this.db.stores(tenantId).files;
    let removed = 0;
    for (;;) {
      const keys = await store.trashed(DRAIN_BATCH);
      const deleted: string[] = [];
      for (let i = 0; i < keys.length; i += DRAIN_PARALLEL) {
        const part = keys.slice(i, i + DRAIN_PARALLEL);
        const outcomes = await Promise.allSettled(part.map((k) => this.blobs.delete(k)));
        outcomes.forEach((o, j) => (o.status === 'fulfilled' ? deleted.push(part[j]!) : this.logStoreError(o.reason, 'deleting a removed file failed')));
      }
      await store.forget(deleted);
      removed += deleted.length;
      // A round that could not delete everything stops: the rest waits for the sweeper.
      if (keys.length < DRAIN_BATCH || deleted.length < keys.length) return removed;
    }
  }

  /** The sweeper's turn for a tenant: expired rows are removed by its own statement; this deletes their objects. */
  async sweep(tenantId: number): Promise<number> {
    try {
      return await this.drain(tenantId);
    } catch (err) {
      this.logStoreError(err, 'deleting removed files failed');
      return 0;
    }
  }

  /** Every `orphanSeconds`, objects no row names (see removeOrphans). */
  async sweepOrphans(now: number): Promise<number> {
    if (!this.opts.orphanSeconds || now - this.lastOrphanScan < this.opts.orphanSeconds) return 0;
    this.lastOrphanScan = now;
    try {
      return await this.removeOrphans(now - ORPHAN_GRACE_SECONDS);
    } catch (err) {
      this.logStoreError(err, 'the orphan file sweep failed');
      return 0;
    }
  }

  /**
   * Deletes objects of ours last changed before `before` that no file row names: uploads whose transaction
   * never committed (a crash between storing the object and the commit), and the objects of removed tenants.
   * Keys this vault did not make are left alone, so a shared bucket is safe.
   */
  async removeOrphans(before: number): Promise<number> {
    let removed = 0;
    let batch: string[] = [];
    for await (const obj of this.blobs.list('t')) {
      if (obj.modified >= before || tenantOfKey(obj.key) === undefined) continue;
      batch.push(obj.key);
      if (batch.length >= ORPHAN_BATCH) {
        removed += await this.removeUnnamed(batch);
        batch = [];
      }
    }
    if (batch.length) removed += await this.removeUnnamed(batch);
    if (removed) this.log.info({ removed }, 'orphan file objects removed');
    return removed;
  }

  private async removeUnnamed(keys: string[]): Promise<number> {
    const byTenant = new Map<number, string[]>();
    for (const k of keys) {
      const t = tenantOfKey(k)!;
      byTenant.set(t, [...(byTenant.get(t) ?? []), k]);
    }
    const ids = [...byTenant.keys()];
    const live = await this.db.global().tenants.existing(ids);
    let removed = 0;
    for (const [tenantId, tenantKeys] of byTenant) {
      // A removed tenant's schema is gone with every row: none of its objects is named any more.
      const named = live.has(tenantId) ? await this.db.stores(tenantId).files.referenced(tenantKeys) : new Set<string>();
      for (const key of tenantKeys.filter((k) => !named.has(k))) {
        await this.blobs.delete(key);
        removed++;
      }
    }
    return removed;
  }

  close(): void {
    this.blobs.close();
  }

  private logStoreError(err: unknown, msg: string): void {
    // Type and code only: SDK messages may quote keys or request details.
    const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
    this.log.error({ err: { type: e?.name, code: e?.code, status: e?.$metadata?.httpStatusCode } }, msg);
  }
}

