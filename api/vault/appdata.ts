// Per-user app data: a JSON object per (user, app), sealed through the tokenizer, with earlier versions kept.
import { createHash } from 'node:crypto';
import type { Sealer } from './sealed.js';
import type { AppRow } from '../store/appdata.js';
import { NotFoundError, notFound, Messages } from '../errors.js';
import type { Scope } from './scope.js';
import { mergedCopy } from './merge-patch.js';

const APP_TABLE = 'app_records';
export type AppData = Record<string, unknown>;

export class Appdata {
  constructor(
    private readonly sealer: Sealer,
    private readonly opts: { versioning: boolean; maxVersions: number },
  ) {}


  // The AAD names the user (also as the key's subject), the app and the version, so a record moved to another
  // user, app or version does not open: a database writer cannot roll a record back unnoticed.
  private rowId(token: string, appname: string, version: number): string {
    return `${token}:${appname}/v${version}`;
  }

  private async openMany(scope: Scope, token: string, appname: string, blobs: { data: Buffer; version: number }[]): Promise<Buffer[]> {
    const key = await this.sealer.keys.key(scope, token);
    return this.sealer.openBytes(scope.tenantId, APP_TABLE, blobs.map((b) => ({ rowId: this.rowId(token, appname, b.version), blob: b.data })), key);
  }

  /**
   * Creates the user's record for the app, or replaces it (the old one becomes a version). `current` is the
   * record as the caller already read and locked it (null: it has none), saving a second read.
   */
  async put(scope: Scope, token: string, appname: string, data: AppData, current?: AppRow | null): Promise<void> {
    const store = scope.stores.appdata;
    const old = current !== undefined ? current : await store.get(token, appname, true);
    const sealed = await this.sealer.sealFor(scope, token, { table: APP_TABLE, rowId: this.rowId(token, appname, old ? old.version + 1 : 1) }, data);
    if (old) await store.replace(token, appname, old, sealed, { now: scope.now, keep: this.keep });
    else await store.insert(token, appname, sealed, scope.now);
  }

  /**
   * RFC 7396 merge into the user's record for the app (null deletes a field), creating it from the patch when
   * there is none and `create` allows; otherwise 404.
   */
  async merge(scope: Scope, token: string, appname: string, patch: AppData, opts: { create: boolean }): Promise<{ before: AppData | undefined; after: AppData }> {
    const current = await this.get(scope, token, appname, true).catch((err: unknown) => {
      if (opts.create && err instanceof NotFoundError) return null;
      throw err;
    });
    const next = mergedCopy(current?.data ?? {}, patch) as AppData;
    await this.put(scope, token, appname, next, current?.row ?? null);
    return { before: current?.data, after: next };
  }

  private get keep(): number {
    return this.opts.versioning ? this.opts.maxVersions : 0;
  }

  /** The record and its plaintext, or 404 when the user has none for the app. */
  async get(scope: Scope, token: string, appname: string, forUpdate = false): Promise<{ row: AppRow; data: AppData }> {
    const row = await scope.stores.appdata.get(token, appname, forUpdate);
    if (!row) throw notFound(Messages.appNotFound);
    const [plain] = await this.openMany(scope, token, appname, [row]);
    return { row, data: JSON.parse(plain!.toString('utf8')) as AppData };
  }

  async at(scope: Scope, token: string, appname: string, version: number): Promise<AppData> {
    const current = await this.get(scope, token, appname);
    if (version === current.row.version) return current.data;
    const blob = version > 0 && version < current.row.version ? await scope.stores.appdata.version(token, appname, version) : null;
    if (!blob) throw notFound(Messages.versionNotFound);
    const [plain] = await this.openMany(scope, token, appname, [{ data: blob, version }]);
    return JSON.parse(plain!.toString('utf8')) as AppData;
  }

  /** Versions with the md5 of each plaintext, oldest first, the current one last. */
  async versions(scope: Scope, token: string, appname: string): Promise<{ version: number; optime: number; md5: string }[]> {
    const current = await scope.stores.appdata.get(token, appname);
    if (!current) throw notFound(Messages.appNotFound);
    const all = [...(await scope.stores.appdata.versions(token, appname)), { version: current.version, data: current.data, optime: current.updated }];
    const opened = await this.openMany(scope, token, appname, all);
    return all.map((v, i) => ({ version: v.version, optime: v.optime, md5: createHash('md5').update(opened[i]!).digest('hex') }));
  }
}
