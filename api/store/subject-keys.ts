// SQL for one tenant's key table: each person's data key, wrapped by the tokenizer; null once erased. With a key
// database of its own (STRONGROOM_KEYS_DATABASE_URL) the wrapped keys live there, and the tenant's table here is a
// ledger without key material (who has a key, who is erased) that the data database's own queries join.
import type pg from 'pg';
import { TenantTables } from './tenant-tables.js';
import { KEYS_SCHEMA } from './keys-database.js';

/** A wrapped key's master version, from its header (format byte, then the version as u32). */
const VERSION_OF = (w: string) => `get_byte(${w}, 1) << 24 | get_byte(${w}, 2) << 16 | get_byte(${w}, 3) << 8 | get_byte(${w}, 4)`;

export class SubjectKeyStore extends TenantTables {
  private get remote(): pg.Pool | undefined {
    return this.places.keys;
  }

  private async remoteSql<T>(text: string, params: unknown[]): Promise<T[]> {
    return (await this.remote!.query(text, params)).rows as T[];
  }

  /** The wrapped key of each token found: a Buffer while the person lives, null once erased. */
  async get(tokens: string[]): Promise<Map<string, Buffer | null>> {
    if (!tokens.length) return new Map();
    const rows = this.remote
      ? await this.remoteSql<{ token: string; wrapped: Buffer | null }>(
          `select token, wrapped from ${KEYS_SCHEMA}.subject_keys where tenant_id = $1 and token = any($2::uuid[])`,
          [this.tenantId, tokens],
        )
      : await this.sql<{ token: string; wrapped: Buffer | null }>(`select token, wrapped from ${this.t}.subject_keys where token = any($1::uuid[])`, [tokens]);
    return new Map(rows.map((r) => [r.token, r.wrapped]));
  }

  /** Stores new keys; with `ifAbsent`, a token that already has one keeps it (a concurrent first writer wins). */
  async insertMany(rows: { token: string; wrapped: Buffer }[], now: number, ifAbsent = false): Promise<void> {
    if (!rows.length) return;
    const onConflict = ifAbsent ? ' on conflict do nothing' : '';
    const tokens = rows.map((r) => r.token);
    const wrapped = rows.map((r) => r.wrapped);
    if (this.remote) {
      // The key first, committed at once: a row whose transaction then fails leaves an unused key, never a row
      // without one.
      await this.remoteSql(
        `insert into ${KEYS_SCHEMA}.subject_keys (tenant_id, token, wrapped, key_version, created)
         select $1, t, w, ${VERSION_OF('w')}, $4 from unnest($2::uuid[], $3::bytea[]) as x(t, w)${onConflict}`,
        [this.tenantId, tokens, wrapped, now],
      );
      await this.sql(`insert into ${this.t}.subject_keys (token, created) select t, $2 from unnest($1::uuid[]) as x(t)${onConflict}`, [tokens, now]);
      return;
    }
    await this.sql(
      `insert into ${this.t}.subject_keys (token, wrapped, key_version, created)
       select t, w, ${VERSION_OF('w')}, $3 from unnest($1::uuid[], $2::bytea[]) as x(t, w)${onConflict}`,
      [tokens, wrapped, now],
    );
  }

  /** Tombstones for people erased before they ever had a key (the legacy upgrade): their records read as erased. */
  async tombstones(tokens: string[], now: number): Promise<void> {
    if (!tokens.length) return;
    if (this.remote) {
      await this.remoteSql(
        `insert into ${KEYS_SCHEMA}.subject_keys (tenant_id, token, wrapped, key_version, created, erased)
         select $1, t, null, null, $3, $3 from unnest($2::uuid[]) as x(t) on conflict do nothing`,
        [this.tenantId, tokens, now],
      );
    }
    await this.sql(
      `insert into ${this.t}.subject_keys (token, wrapped, key_version, created, erased) select t, null, null, $2, $2 from unnest($1::uuid[]) as x(t) on conflict do nothing`,
      [tokens, now],
    );
  }

  /**
   * Destroys the keys (in the caller's transaction; in a key database of its own, at once, before the caller's
   * commit: a failed erasure then leaves the person unreadable, never readable). The rows stay as tombstones
   * without key material, so that what was sealed for the person reads as erased rather than as missing.
   */
  async erase(tokens: string[], now: number): Promise<void> {
    if (!tokens.length) return;
    if (this.remote) {
      await this.remoteSql(
        `update ${KEYS_SCHEMA}.subject_keys set wrapped = null, key_version = null, erased = $3 where tenant_id = $1 and token = any($2::uuid[]) and erased is null`,
        [this.tenantId, tokens, now],
      );
    }
    await this.sql(`update ${this.t}.subject_keys set wrapped = null, key_version = null, erased = $2 where token = any($1::uuid[]) and erased is null`, [
      tokens,
      now,
    ]);
  }

  /**
   * With a key database of its own: which of these live ledger tokens have no live key there (a data backup
   * restored after their erasure). Their ledger rows are marked erased here, so they read as absent from then on.
   */
  async reconcile(limit: number, after: string | null, now: number): Promise<{ erased: number; last: string | null }> {
    if (!this.remote) return { erased: 0, last: null };
    const ledger = await this.sql<{ token: string }>(
      `select token from ${this.t}.subject_keys where erased is null and ($1::uuid is null or token > $1::uuid) order by token limit $2`,
      [after, limit],
    );
    if (!ledger.length) return { erased: 0, last: null };
    const tokens = ledger.map((r) => r.token);
    const keys = await this.get(tokens);
    const gone = tokens.filter((t) => !keys.get(t));
    if (gone.length) await this.sql(`update ${this.t}.subject_keys set erased = $2 where token = any($1::uuid[]) and erased is null`, [gone, now]);
    return { erased: gone.length, last: tokens.at(-1)! };
  }

  /** Keys still wrapped under another master version than `active`, a batch at a time (rotation). */
  async wrappedUnder(active: number, limit: number): Promise<{ token: string; wrapped: Buffer }[]> {
    if (this.remote) {
      return this.remoteSql<{ token: string; wrapped: Buffer }>(
        `select token, wrapped from ${KEYS_SCHEMA}.subject_keys where tenant_id = $1 and wrapped is not null and key_version <> $2 order by token limit $3`,
        [this.tenantId, active, limit],
      );
    }
    return this.sql<{ token: string; wrapped: Buffer }>(
      `select token, wrapped from ${this.t}.subject_keys where wrapped is not null and key_version <> $1 order by token limit $2`,
      [active, limit],
    );
  }

  /** How many keys `wrappedUnder(active, …)` has still to give, all batches together (the rewrap's metric). */
  async countWrappedUnder(active: number): Promise<number> {
    const [row] = this.remote
      ? await this.remoteSql<{ n: string }>(`select count(*) as n from ${KEYS_SCHEMA}.subject_keys where tenant_id = $1 and wrapped is not null and key_version <> $2`, [this.tenantId, active])
      : await this.sql<{ n: string }>(`select count(*) as n from ${this.t}.subject_keys where wrapped is not null and key_version <> $1`, [active]);
    return Number(row?.n ?? 0);
  }

  /** Replaces wrapped keys, unless they changed meanwhile (erased or rewrapped by another replica). */
  async rewrap(rows: { token: string; old: Buffer; wrapped: Buffer }[]): Promise<number> {
    if (!rows.length) return 0;
    const params = [rows.map((r) => r.token), rows.map((r) => r.old), rows.map((r) => r.wrapped)];
    const set = `set wrapped = x.w, key_version = ${VERSION_OF('x.w')} from unnest($1::uuid[], $2::bytea[], $3::bytea[]) as x(t, o, w)`;
    const done = this.remote
      ? await this.remoteSql(`update ${KEYS_SCHEMA}.subject_keys k ${set} where k.tenant_id = $4 and k.token = x.t and k.wrapped = x.o returning k.token`, [
          ...params,
          this.tenantId,
        ])
      : await this.sql(`update ${this.t}.subject_keys k ${set} where k.token = x.t and k.wrapped = x.o returning k.token`, params);
    return done.length;
  }

  /** Keys per master version (live ones), for the keyring's status. */
  async countsByVersion(): Promise<Map<number, number>> {
    const rows = this.remote
      ? await this.remoteSql<{ v: number; n: string }>(
          `select key_version as v, count(*) as n from ${KEYS_SCHEMA}.subject_keys where tenant_id = $1 and wrapped is not null group by key_version`,
          [this.tenantId],
        )
      : await this.sql<{ v: number; n: string }>(`select key_version as v, count(*) as n from ${this.t}.subject_keys where wrapped is not null group by key_version`);
    return new Map(rows.map((r) => [Number(r.v), Number(r.n)]));
  }

  /**
   * User rows with their wrapped keys from the key database (read there in one statement); rows whose key is gone
   * there are left out: they read as absent. Without a key database the rows already carry their keys.
   */
  async withKeys<R extends { token: string; wrappedKey: Buffer }>(rows: R[]): Promise<R[]> {
    if (!this.remote || !rows.length) return rows;
    const keys = await this.get(rows.map((r) => r.token));
    return rows.filter((r) => keys.get(r.token)).map((r) => ({ ...r, wrappedKey: keys.get(r.token)! }));
  }
}
