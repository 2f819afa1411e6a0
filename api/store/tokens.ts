// SQL for the tokens table of one tenant schema: rows found by tokenuuid or by HMACs, never by a value.
import { TenantTables } from './tenant-tables.js';

export interface TokenRow {
  tokenuuid: string;
  tokenbase: string;
  baseHash: Buffer;
  recordHash: Buffer | null;
  tokentype: string;
  sealed: Buffer;
  created: number;
  finaltime: number | null;
  slidingtime: number | null;
  expiresAt: number | null;
}

const COLUMNS = 'tokenuuid, tokenbase, base_hash, record_hash, tokentype, sealed, created, finaltime, slidingtime, expires_at';
const INSERT_COLUMNS = COLUMNS.split(', ');

function toRow(r: Record<string, unknown>): TokenRow {
  return {
    tokenuuid: r.tokenuuid as string,
    tokenbase: r.tokenbase as string,
    baseHash: r.base_hash as Buffer,
    recordHash: (r.record_hash as Buffer | null) ?? null,
    tokentype: r.tokentype as string,
    sealed: r.sealed as Buffer,
    created: Number(r.created),
    finaltime: r.finaltime == null ? null : Number(r.finaltime),
    slidingtime: r.slidingtime == null ? null : Number(r.slidingtime),
    expiresAt: r.expires_at == null ? null : Number(r.expires_at),
  };
}

/** Live rows only: an expired token reads as absent before the sweeper removes it. */
const live = (n: number) => `(expires_at is null or expires_at > $${n})`;

export class TokenStore extends TenantTables {
  private get table(): string {
    return `"${this.schema}".tokens`;
  }

  /** Live rows whose tokenuuid or base hash is listed, in no particular order. */
  async find(uuids: string[], baseHashes: Buffer[], now: number, forUpdate = false): Promise<TokenRow[]> {
    if (!uuids.length && !baseHashes.length) return [];
    const rows = await this.sql(
      `select ${COLUMNS} from ${this.table}
       where (tokenuuid = any($1::uuid[]) or base_hash = any($2::bytea[])) and ${live(3)}${forUpdate ? ' for update' : ''}`,
      [uuids, baseHashes, now],
    );
    return rows.map(toRow);
  }

  async byRecordHashes(hashes: Buffer[], now: number): Promise<TokenRow[]> {
    if (!hashes.length) return [];
    const rows = await this.sql(`select ${COLUMNS} from ${this.table} where record_hash = any($1::bytea[]) and ${live(2)} for update`, [
      hashes,
      now,
    ]);
    return rows.map(toRow);
  }

  /** Expired rows holding these record hashes give way, so `unique` makes a fresh pair once a token expired. */
  async dropExpiredRecords(hashes: Buffer[], now: number): Promise<void> {
    if (!hashes.length) return;
    await this.sql(`delete from ${this.table} where record_hash = any($1::bytea[]) and expires_at <= $2`, [hashes, now]);
  }

  /** Inserts what does not collide; returns the tokenuuids inserted. Collisions are left to the caller. */
  async insertMany(rows: TokenRow[]): Promise<Set<string>> {
    const inserted = new Set<string>();
    const n = INSERT_COLUMNS.length;
    // PostgreSQL takes at most 65,535 parameters per statement.
    for (let start = 0; start < rows.length; start += 6000) {
      const chunk = rows.slice(start, start + 6000);
      const values = chunk.map((_, r) => `(${INSERT_COLUMNS.map((_, c) => `$${r * n + c + 1}`).join(', ')})`).join(', ');
      const params = chunk.flatMap((r) => [
        r.tokenuuid, r.tokenbase, r.baseHash, r.recordHash, r.tokentype, r.sealed, r.created, r.finaltime, r.slidingtime, r.expiresAt,
      ]);
      const done = await this.sql(`insert into ${this.table} (${COLUMNS}) values ${values} on conflict do nothing returning tokenuuid`, params);
      for (const d of done) inserted.add(d.tokenuuid as string);
    }
    return inserted;
  }

  /** A `unique` hit restarts its life with the new call's expiry settings. */
  async setExpiry(uuids: string[], finaltime: number | null, slidingtime: number | null, expiresAt: number | null): Promise<void> {
    if (!uuids.length) return;
    await this.sql(`update ${this.table} set finaltime = $2, slidingtime = $3, expires_at = $4 where tokenuuid = any($1::uuid[])`, [
      uuids,
      finaltime,
      slidingtime,
      expiresAt,
    ]);
  }

  async touch(uuid: string, expiresAt: number): Promise<void> {
    await this.sql(`update ${this.table} set expires_at = $2 where tokenuuid = $1`, [uuid, expiresAt]);
  }

  async remove(uuids: string[]): Promise<number> {
    if (!uuids.length) return 0;
    const rows = await this.sql(`delete from ${this.table} where tokenuuid = any($1::uuid[]) returning tokenuuid`, [uuids]);
    return rows.length;
  }

  /** Removes expired tokens, a bounded number at a time; returns how many went. */
  async sweep(now: number, max: number): Promise<number> {
    const rows = await this.sql(
      `delete from ${this.table} where tokenuuid in (select tokenuuid from ${this.table} where expires_at <= $1 limit $2) returning tokenuuid`,
      [now, max],
    );
    return rows.length;
  }
}
