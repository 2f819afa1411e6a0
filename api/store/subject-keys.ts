// SQL for one tenant's key table: each person's data key, wrapped by the tokenizer; null once erased.
import { TenantTables } from './tenant-tables.js';

export class SubjectKeyStore extends TenantTables {
  /** The wrapped key of each token found: a Buffer while the person lives, null once erased. */
  async get(tokens: string[]): Promise<Map<string, Buffer | null>> {
    if (!tokens.length) return new Map();
    const rows = await this.sql<{ token: string; wrapped: Buffer | null }>(`select token, wrapped from ${this.t}.subject_keys where token = any($1::uuid[])`, [
      tokens,
    ]);
    return new Map(rows.map((r) => [r.token, r.wrapped]));
  }

  async insertMany(rows: { token: string; wrapped: Buffer }[], now: number): Promise<void> {
    if (!rows.length) return;
    await this.sql(
      `insert into ${this.t}.subject_keys (token, wrapped, key_version, created)
       select t, w, get_byte(w, 1) << 24 | get_byte(w, 2) << 16 | get_byte(w, 3) << 8 | get_byte(w, 4), $3
       from unnest($1::uuid[], $2::bytea[]) as x(t, w)`,
      [rows.map((r) => r.token), rows.map((r) => r.wrapped), now],
    );
  }

  /**
   * Destroys the keys (in the caller's transaction): the row stays as a tombstone without key material, so that
   * what was sealed for the person reads as erased rather than as missing.
   */
  async erase(tokens: string[], now: number): Promise<void> {
    if (!tokens.length) return;
    await this.sql(`update ${this.t}.subject_keys set wrapped = null, key_version = null, erased = $2 where token = any($1::uuid[]) and wrapped is not null`, [
      tokens,
      now,
    ]);
  }

  /** Keys still wrapped under another master version than `active`, a batch at a time (rotation). */
  async wrappedUnder(active: number, limit: number): Promise<{ token: string; wrapped: Buffer }[]> {
    return this.sql<{ token: string; wrapped: Buffer }>(
      `select token, wrapped from ${this.t}.subject_keys where wrapped is not null and key_version <> $1 order by token limit $2`,
      [active, limit],
    );
  }

  /** Replaces a wrapped key, unless it changed meanwhile (erased or rewrapped by another replica). */
  async rewrap(rows: { token: string; old: Buffer; wrapped: Buffer }[]): Promise<number> {
    if (!rows.length) return 0;
    const done = await this.sql(
      `update ${this.t}.subject_keys k
       set wrapped = x.w, key_version = get_byte(x.w, 1) << 24 | get_byte(x.w, 2) << 16 | get_byte(x.w, 3) << 8 | get_byte(x.w, 4)
       from unnest($1::uuid[], $2::bytea[], $3::bytea[]) as x(t, o, w)
       where k.token = x.t and k.wrapped = x.o returning k.token`,
      [rows.map((r) => r.token), rows.map((r) => r.old), rows.map((r) => r.wrapped)],
    );
    return done.length;
  }

  /** Keys per master version (live ones), for the keyring's status. */
  async countsByVersion(): Promise<Map<number, number>> {
    const rows = await this.sql<{ v: number; n: string }>(`select key_version as v, count(*) as n from ${this.t}.subject_keys where wrapped is not null group by key_version`);
    return new Map(rows.map((r) => [Number(r.v), Number(r.n)]));
  }
}
