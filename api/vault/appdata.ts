// Per-user app data: a JSON object per (user, app), sealed through the tokenizer, with earlier versions kept.
import { createHash } from 'node:crypto';
import type { TokenizerClient } from '../tokenizer-client.js';
import { tenantSchema } from '../store/database.js';
import { AppStore, type AppRow } from '../store/appdata.js';
import { notFound, Messages } from '../http/errors.js';
import type { Scope } from './users.js';

const APP_TABLE = 'app_records';
export type AppData = Record<string, unknown>;

export class Appdata {
  constructor(
    private readonly tokenizer: TokenizerClient,
    private readonly opts: { versioning: boolean; maxVersions: number },
  ) {}

  store(scope: Scope): AppStore {
    return new AppStore(scope.em, tenantSchema(scope.tenantId));
  }

  // The AAD names the user and the app, so a record moved to another user or app does not open.
  private rowId(token: string, appname: string): string {
    return `${token}:${appname}`;
  }

  private async seal(tenantId: number, token: string, appname: string, data: AppData): Promise<Buffer> {
    const { sealed } = await this.tokenizer.run(tenantId, { seal: [{ table: APP_TABLE, rowId: this.rowId(token, appname), plaintext: Buffer.from(JSON.stringify(data)) }] });
    return sealed[0]!;
  }

  private async openMany(tenantId: number, token: string, appname: string, blobs: Buffer[]): Promise<Buffer[]> {
    if (!blobs.length) return [];
    const { opened } = await this.tokenizer.run(tenantId, { open: blobs.map((ciphertext) => ({ table: APP_TABLE, rowId: this.rowId(token, appname), ciphertext })) });
    return opened;
  }

  /**
   * Creates the user's record for the app, or replaces it (the old one becomes a version). `current` is the
   * record as the caller already read and locked it (null: it has none), saving a second read.
   */
  async put(scope: Scope, token: string, appname: string, data: AppData, current?: AppRow | null): Promise<void> {
    const store = this.store(scope);
    const sealed = await this.seal(scope.tenantId, token, appname, data);
    const old = current !== undefined ? current : await store.get(token, appname, true);
    if (old) await store.replace(token, appname, old, sealed, scope.now, this.keep);
    else await store.insert(token, appname, sealed, scope.now);
  }

  private get keep(): number {
    return this.opts.versioning ? this.opts.maxVersions : 0;
  }

  /** The record and its plaintext, or 404 when the user has none for the app. */
  async get(scope: Scope, token: string, appname: string, forUpdate = false): Promise<{ row: AppRow; data: AppData }> {
    const row = await this.store(scope).get(token, appname, forUpdate);
    if (!row) throw notFound(Messages.appNotFound);
    const [plain] = await this.openMany(scope.tenantId, token, appname, [row.data]);
    return { row, data: JSON.parse(plain!.toString('utf8')) as AppData };
  }

  async at(scope: Scope, token: string, appname: string, version: number): Promise<AppData> {
    const current = await this.get(scope, token, appname);
    if (version === current.row.version) return current.data;
    const blob = version > 0 && version < current.row.version ? await this.store(scope).version(token, appname, version) : null;
    if (!blob) throw notFound(Messages.versionNotFound);
    const [plain] = await this.openMany(scope.tenantId, token, appname, [blob]);
    return JSON.parse(plain!.toString('utf8')) as AppData;
  }

  /** Versions with the md5 of each plaintext, oldest first, the current one last. */
  async versions(scope: Scope, token: string, appname: string): Promise<{ version: number; optime: number; md5: string }[]> {
    const current = await this.store(scope).get(token, appname);
    if (!current) throw notFound(Messages.appNotFound);
    const all = [...(await this.store(scope).versions(token, appname)), { version: current.version, data: current.data, optime: current.updated }];
    const opened = await this.openMany(scope.tenantId, token, appname, all.map((v) => v.data));
    return all.map((v, i) => ({ version: v.version, optime: v.optime, md5: createHash('md5').update(opened[i]!).digest('hex') }));
  }
}
