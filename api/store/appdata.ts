// SQL for per-user app records of one tenant schema and their versions.
import { TenantTables } from './tenant-tables.js';

export interface AppRow {
  data: Buffer;
  version: number;
  updated: number;
}

export class AppStore extends TenantTables {
  async get(token: string, appname: string, forUpdate = false): Promise<AppRow | null> {
    const [r] = await this.sql<Record<string, unknown>>(`select data, version, updated from ${this.t}.app_records where user_token = $1 and appname = $2${forUpdate ? ' for update' : ''}`,
      [token, appname],
    );
    return r ? { data: r.data as Buffer, version: Number(r.version), updated: Number(r.updated) } : null;
  }

  async insert(token: string, appname: string, data: Buffer, now: number): Promise<void> {
    await this.sql(`insert into ${this.t}.app_records (user_token, appname, data, version, created, updated) values ($1, $2, $3, 1, $4, $4)`, [
      token,
      appname,
      data,
      now,
    ]);
  }

  /**
   * Replaces the record, locked by the caller at `old.version`; the replaced one is kept as a version when `opts.keep`
   * is above zero, copied inside the database rather than sent back to it. One statement. A record no longer at
   * `old.version` is an error: nothing is written.
   */
  async replace(token: string, appname: string, old: Pick<AppRow, 'version'>, data: Buffer, opts: { now: number; keep: number }): Promise<void> {
    const { now, keep } = opts;
    const update = `update ${this.t}.app_records set data = $3, version = $4, updated = $5 where user_token = $1 and appname = $2 and version = $6`;
    const params = [token, appname, data, old.version + 1, now, old.version];
    const stale = () => new Error(`app record ${appname} of ${token} is not at version ${old.version}: not replaced`);
    if (keep <= 0) {
      if ((await this.sql(`${update} returning 1`, params)).length !== 1) throw stale();
      return;
    }
    // The old record becomes a version, versions beyond `keep` go, and the record is replaced: one round trip.
    const [r] = await this.sql<{ kept: number; updated: number }>(
      `with kept as (
         insert into ${this.t}.app_versions (user_token, appname, version, data, optime)
         select user_token, appname, version, data, updated from ${this.t}.app_records where user_token = $1 and appname = $2 and version = $6
         returning 1
       ), trimmed as (
         delete from ${this.t}.app_versions where user_token = $1 and appname = $2 and version <= $7 and exists (select 1 from kept)
       ), changed as (
         ${update} returning 1
       )
       select (select count(*) from kept)::int as kept, (select count(*) from changed)::int as updated`,
      [...params, old.version - keep],
    );
    if (r?.kept !== 1 || r.updated !== 1) throw stale();
  }

  async version(token: string, appname: string, version: number): Promise<Buffer | null> {
    const [r] = await this.sql<{ data: Buffer }>(`select data from ${this.t}.app_versions where user_token = $1 and appname = $2 and version = $3`, [
      token,
      appname,
      version,
    ]);
    return r?.data ?? null;
  }

  async versions(token: string, appname: string): Promise<{ version: number; data: Buffer; optime: number }[]> {
    const rows = await this.sql<Record<string, unknown>>(`select version, data, optime from ${this.t}.app_versions where user_token = $1 and appname = $2 order by version`,
      [token, appname],
    );
    return rows.map((r) => ({ version: Number(r.version), data: r.data as Buffer, optime: Number(r.optime) }));
  }

  async remove(token: string, appname: string): Promise<boolean> {
    await this.sql(`delete from ${this.t}.app_versions where user_token = $1 and appname = $2`, [token, appname]);
    const rows = await this.sql(`delete from ${this.t}.app_records where user_token = $1 and appname = $2 returning appname`, [token, appname]);
    return rows.length > 0;
  }

  async appNames(): Promise<string[]> {
    return (await this.sql<{ appname: string }>(`select distinct appname from ${this.t}.app_records order by appname`)).map((r) => r.appname);
  }

  async userAppNames(token: string): Promise<string[]> {
    return (await this.sql<{ appname: string }>(`select appname from ${this.t}.app_records where user_token = $1 order by appname`, [token])).map(
      (r) => r.appname,
    );
  }
}
