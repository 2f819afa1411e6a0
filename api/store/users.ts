// SQL for the users table of one tenant schema: lookups by hashed index, inserts, versioned updates.
import { isUniqueViolation } from './errors.js';
import { conflict, Messages } from '../errors.js';
import type { IndexMode } from '../vault/identities.js';
import { TenantTables } from './tenant-tables.js';
import { GLOBAL_SCHEMA } from './schemas.js';
import { CredentialStore } from './credentials.js';
import { SubjectKeyStore } from './subject-keys.js';

export interface UserRow {
  token: string;
  profile: Buffer;
  loginIdx: Buffer | null;
  emailIdx: Buffer | null;
  phoneIdx: Buffer | null;
  customIdx: Buffer | null;
  version: number;
  created: number;
  updated: number;
  finaltime: number | null;
  slidingtime: number | null;
  expiresAt: number | null;
  grouproles: GroupRole[];
  /** The person's data key, wrapped by the tokenizer (subject_keys); never in the clear. */
  wrappedKey: Buffer;
}

export type IndexColumn = 'loginIdx' | 'emailIdx' | 'phoneIdx' | 'customIdx';
export const INDEX_COLUMN: Record<IndexMode, IndexColumn> = {
  login: 'loginIdx',
  email: 'emailIdx',
  phone: 'phoneIdx',
  custom: 'customIdx',
};
const UPDATE_COLUMN: Record<'profile' | IndexColumn | 'version' | 'updated', string> = {
  profile: 'profile',
  loginIdx: 'login_idx',
  emailIdx: 'email_idx',
  phoneIdx: 'phone_idx',
  customIdx: 'custom_idx',
  version: 'version',
  updated: 'updated',
};
const SQL_COLUMN: Record<IndexMode, string> = { login: 'login_idx', email: 'email_idx', phone: 'phone_idx', custom: 'custom_idx' };

const INSERT_COLUMNS = ['token', 'profile', 'login_idx', 'email_idx', 'phone_idx', 'custom_idx', 'version', 'created', 'updated', 'finaltime', 'slidingtime', 'expires_at'];
const COLUMNS = INSERT_COLUMNS.join(', ');

export interface GroupRole {
  groupid: number;
  groupname: string;
  grouptype: string;
  roleid: number | null;
  rolename: string | null;
}

/** The row's columns and its group memberships, read in the same statement. */
function selectColumns(schema: string): string {
  return `${COLUMNS}, (select coalesce(json_agg(json_build_object('groupid', g.id, 'groupname', g.name, 'grouptype', g.type,
      'roleid', m.role_id, 'rolename', r.name) order by g.id), '[]'::json)
    from "${schema}".group_members m join "${schema}".groups g on g.id = m.group_id
    left join "${GLOBAL_SCHEMA}".roles r on r.id = m.role_id where m.user_token = users.token) as grouproles,
    (select k.wrapped from "${schema}".subject_keys k where k.token = users.token) as wrapped_key`;
}

function toRow(r: Record<string, unknown>): UserRow {
  return {
    token: r.token as string,
    profile: r.profile as Buffer,
    loginIdx: (r.login_idx as Buffer | null) ?? null,
    emailIdx: (r.email_idx as Buffer | null) ?? null,
    phoneIdx: (r.phone_idx as Buffer | null) ?? null,
    customIdx: (r.custom_idx as Buffer | null) ?? null,
    version: Number(r.version),
    created: Number(r.created),
    updated: Number(r.updated),
    finaltime: r.finaltime == null ? null : Number(r.finaltime),
    slidingtime: r.slidingtime == null ? null : Number(r.slidingtime),
    expiresAt: r.expires_at == null ? null : Number(r.expires_at),
    grouproles: (r.grouproles as GroupRole[] | undefined) ?? [],
    wrappedKey: r.wrapped_key as Buffer,
  };
}

/**
 * Live rows only: an expired record reads as absent even before the sweeper removes it, and so does a row whose
 * person's key is gone (a row brought back by restoring an old backup after the person was erased). With a key
 * database of its own, the rows read are also checked against it (SubjectKeyStore.withKeys).
 */
const live = (schema: string, n: number) =>
  `(expires_at is null or expires_at > $${n}) and exists (select 1 from "${schema}".subject_keys k where k.token = users.token and k.erased is null)`;

/** The most keys `byKeys` lists one parameter each (a power of two); more go as one array. */
const LISTED_KEYS = 64;

export class UserStore extends TenantTables {
  private exec<T = Record<string, unknown>>(sql: string, params: unknown[]): Promise<T[]> {
    return this.sql<T>(sql, params);
  }

  async byToken(token: string, now: number, forUpdate = false): Promise<UserRow | null> {
    const rows = await this.sql(
      `select ${selectColumns(this.schema)} from "${this.schema}".users where token = $1 and ${live(this.schema, 2)}${forUpdate ? ' for update' : ''}`,
      [token, now]);
    return (await this.keyed(rows))[0] ?? null;
  }

  /** Rows as read, with their keys (and without the rows whose key is gone, when keys live apart). */
  private keyed(rows: Record<string, unknown>[]): Promise<UserRow[]> {
    return new SubjectKeyStore(this.handle, this.tenantId, this.places).withKeys(rows.map(toRow));
  }

  async byIndex(mode: IndexMode, hash: Buffer, now: number, forUpdate = false): Promise<UserRow | null> {
    const rows = await this.sql(
      `select ${selectColumns(this.schema)} from "${this.schema}".users where ${SQL_COLUMN[mode]} = $1 and ${live(this.schema, 2)}${forUpdate ? ' for update' : ''}`,
      [hash, now]);
    return (await this.keyed(rows))[0] ?? null;
  }

  /**
   * Live rows for many tokens (mode `token`) or many hashes of one index, in one statement; unordered. Up to
   * LISTED_KEYS keys are listed one parameter each, their number rounded up to a power of two by naming the first
   * key again: PostgreSQL then knows how many there are from the statement alone, so the plan a connection keeps for
   * it serves every call. Given as one array parameter, it assumed ten, and since a plan for the actual one or two
   * was cheaper it planned again on every call: 0.47 ms of planning against 0.24 ms of execution for a coalesced
   * UserGet's statement (pg_stat_statements), whose group roles and key are sub-selects. (Padding with nulls made a
   * plan for the actual values cheaper again, nulls matching nothing: 8 and 16 keys were planned on every call.)
   */
  async byKeys(mode: IndexMode | 'token', keys: (string | Buffer)[], now: number): Promise<UserRow[]> {
    if (keys.length === 0) return [];
    const column = mode === 'token' ? 'token' : SQL_COLUMN[mode];
    const type = mode === 'token' ? 'uuid' : 'bytea';
    if (keys.length > LISTED_KEYS) {
      const rows = await this.sql(`select ${selectColumns(this.schema)} from "${this.schema}".users where ${column} = any($1::${type}[]) and ${live(this.schema, 2)}`, [keys, now]);
      return this.keyed(rows);
    }
    const size = 2 ** Math.ceil(Math.log2(keys.length));
    const listed = Array.from({ length: size }, (_, i) => `$${i + 2}::${type}`).join(', ');
    const rows = await this.sql(
      `select ${selectColumns(this.schema)} from "${this.schema}".users where ${column} = any(array[${listed}]) and ${live(this.schema, 1)}`,
      [now, ...keys, ...Array<string | Buffer>(size - keys.length).fill(keys[0]!)],
    );
    return this.keyed(rows);
  }

  /** Every live row whose index matches one of the hashes, whatever the field. */
  async byAnyIndex(hashes: Partial<Record<IndexMode, Buffer[]>>, now: number): Promise<UserRow[]> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    for (const [mode, list] of Object.entries(hashes) as [IndexMode, Buffer[]][]) {
      if (!list.length) continue;
      params.push(list);
      clauses.push(`${SQL_COLUMN[mode]} = any($${params.length}::bytea[])`);
    }
    if (!clauses.length) return [];
    const rows = await this.sql(
      `select ${selectColumns(this.schema)} from "${this.schema}".users where (${clauses.join(' or ')}) and ${live(this.schema, params.length + 1)}`, [...params, now]);
    return rows.map(toRow);
  }

  async page(offset: number, limit: number, now: number): Promise<{ total: number; rows: UserRow[] }> {
    const [count] = await this.sql(`select count(*)::int as n from "${this.schema}".users where ${live(this.schema, 1)}`, [now]);
    const rows = await this.sql(
      `select ${selectColumns(this.schema)} from "${this.schema}".users where ${live(this.schema, 1)} order by seq offset $2 limit $3`,
      [now, offset, limit]);
    return { total: Number(count?.n ?? 0), rows: await this.keyed(rows) };
  }

  /** Inserts the rows; rows that collide with an existing index are skipped and their tokens left out. */
  async insertMany(rows: UserRow[]): Promise<Set<string>> {
    const inserted = new Set<string>();
    for (let i = 0; i < rows.length; i += 2000) {
      for (const r of await this.insertRows(rows.slice(i, i + 2000), 'on conflict do nothing')) inserted.add(r.token);
    }
    return inserted;
  }

  /** Inserts one row; a taken index value answers 409 `Duplicate index: <field>`. */
  async insert(row: UserRow): Promise<void> {
    await indexConflicts(() => this.insertRows([row], ''));
  }

  private insertRows(rows: UserRow[], onConflict: string) {
    const n = INSERT_COLUMNS.length;
    const values = rows.map((_, r) => `(${INSERT_COLUMNS.map((_, c) => `$${r * n + c + 1}`).join(', ')})`).join(', ');
    const params = rows.flatMap((r) => [
      r.token, r.profile, r.loginIdx, r.emailIdx, r.phoneIdx, r.customIdx,
      r.version, r.created, r.updated, r.finaltime, r.slidingtime, r.expiresAt,
    ]);
    return this.sql<{ token: string }>(
      `insert into "${this.schema}".users (${INSERT_COLUMNS.join(', ')}) values ${values} ${onConflict} returning token`, params);
  }

  /** Sets the profile, version and time, and whichever index columns are given. */
  async update(token: string, set: Pick<UserRow, 'profile' | 'version' | 'updated'> & Partial<Pick<UserRow, IndexColumn>>): Promise<void> {
    const columns = (Object.keys(set) as (keyof typeof set)[]).filter((k) => set[k] !== undefined);
    const assignments = columns.map((k, i) => `${UPDATE_COLUMN[k]} = $${i + 2}`).join(', ');
    await indexConflicts(() => this.sql(`update ${this.t}.users set ${assignments} where token = $1`, [token, ...columns.map((k) => set[k])]));
  }

  /**
   * Replaces a user's row, locked by the caller at `version`, and keeps the row as it was as a version, dropping
   * versions beyond the newest `keep`. The old profile is copied inside the database, not sent back to it. (All
   * parts of the statement see the row as it was before it; the trimming cannot see the version kept by the same
   * statement, so `keep` must be 1 or more.) Nothing waits for it: it travels with the transaction's next statement
   * (`Sql.later`), and fails that statement when a new index value is taken (409) or the row is no longer at
   * `version` (its check divides by the rows kept and changed: zero of either is an error, and nothing is written).
   */
  async updateKeepingVersion(
    token: string,
    old: { version: number; keep: number },
    set: Pick<UserRow, 'profile' | 'version' | 'updated'> & Partial<Pick<UserRow, IndexColumn>>,
  ): Promise<void> {
    if (!(old.keep >= 1)) throw new Error('updateKeepingVersion keeps at least one version');
    const columns = (Object.keys(set) as (keyof typeof set)[]).filter((k) => set[k] !== undefined);
    const assignments = columns.map((k, i) => `${UPDATE_COLUMN[k]} = $${i + 4}`).join(', ');
    await this.sqlLater(
      `with kept as (
         insert into ${this.t}.user_versions (token, version, profile, optime)
         select token, version, profile, updated from ${this.t}.users where token = $1 and version = $2 returning 1
       ), trimmed as (
         delete from ${this.t}.user_versions where token = $1 and version <= $3 and exists (select 1 from kept)
       ), changed as (
         update ${this.t}.users set ${assignments} where token = $1 and version = $2 returning 1
       )
       select 1 / ((select count(*) from kept) * (select count(*) from changed))::int as replaced`,
      // `keep` may be unbounded (no limit): then nothing is old enough to drop.
      [token, old.version, Math.max(0, old.version - old.keep), ...columns.map((k) => set[k])],
      (err) => ((err as { code?: unknown }).code === '22012' ? new Error(`user row ${token} is not at version ${old.version}: not replaced`) : indexConflict(err)),
    );
  }

  async touch(token: string, expiresAt: number): Promise<void> {
    await this.sql(`update ${this.t}.users set expires_at = $2 where token = $1`, [token, expiresAt]);
  }

  /**
   * Erases the user (in the caller's transaction): its versions, its login xtokens, its requests but a forget-me
   * record, and its data key, so that nothing sealed for it anywhere (audit details, backups) opens again.
   */
  async remove(token: string): Promise<void> {
    await this.sql(`delete from ${this.t}.user_versions where token = $1`, [token]);
    await this.sql(`delete from ${this.t}.users where token = $1`, [token]);
    await this.removeLogins([token]);
    await this.eraseKeys([token]);
  }

  /** The end of every erasure: requests but forget-me records go, and the data keys are destroyed. */
  private async eraseKeys(tokens: string[]): Promise<void> {
    if (!tokens.length) return;
    await this.sql(`delete from ${this.t}.user_requests where user_token = any($1::uuid[]) and requesttype <> 'forget-me'`, [tokens]);
    await this.sql(`update ${this.t}.user_requests set change = null where user_token = any($1::uuid[])`, [tokens]);
    await new SubjectKeyStore(this.handle, this.tenantId, this.places).erase(tokens, Math.floor(Date.now() / 1000));
  }

  /** Every removal of a user ends here: its login xtokens go with it, so no restore brings them back. */
  private removeLogins(tokens: string[]): Promise<void> {
    return new CredentialStore(this.places.vault).removeLoginsOf(this.tenantId, tokens);
  }

  /** Removes expired users with their versions, a bounded number at a time; returns how many went. */
  async sweep(now: number, max: number): Promise<number> {
    const rows = await this.sql(
      `delete from "${this.schema}".users where token in (select token from "${this.schema}".users where expires_at <= $1 limit $2) returning token`,
      [now, max],
    );
    const tokens = rows.map((r) => r.token as string);
    if (tokens.length) await this.sql(`delete from "${this.schema}".user_versions where token = any($1::uuid[])`, [tokens]);
    await this.removeLogins(tokens);
    await this.eraseKeys(tokens);
    // Rows whose key is gone (brought back by a restored backup after their person was erased) read as absent
    // already; here they go for good, with what hangs off them. With keys apart, the ledger learns first which
    // keys the key database no longer has.
    const keys = new SubjectKeyStore(this.handle, this.tenantId, this.places);
    for (let after: string | null = null; ; ) {
      const step = await keys.reconcile(max, after, now);
      if (!step.last) break;
      after = step.last;
    }
    const orphans = await this.sql(
      `delete from "${this.schema}".users where token in (select token from "${this.schema}".users u where not exists
         (select 1 from "${this.schema}".subject_keys k where k.token = u.token and k.erased is null) limit $1) returning token`,
      [max],
    );
    const gone = orphans.map((r) => r.token as string);
    if (gone.length) {
      await this.sql(`delete from "${this.schema}".user_versions where token = any($1::uuid[])`, [gone]);
      await this.sql(`delete from "${this.schema}".user_requests where user_token = any($1::uuid[]) and requesttype <> 'forget-me'`, [gone]);
      await this.removeLogins(gone);
    }
    return tokens.length + gone.length;
  }

  /** Removes the live row only: its versions stay, so SystemRestoreUserProfile can bring it back (not its xtokens). */
  async removeKeepingVersions(token: string): Promise<void> {
    await this.sql(`delete from ${this.t}.users where token = $1`, [token]);
    await this.sql(`delete from ${this.t}.user_requests where user_token = $1`, [token]);
    await this.removeLogins([token]);
  }

  /** Keeps the replaced ciphertext as a version and drops versions beyond the newest `keep`. */
  async keepVersion(token: string, version: number, profile: Buffer, optime: number, keep: number): Promise<void> {
    await this.sql(`insert into ${this.t}.user_versions (token, version, profile, optime) values ($1, $2, $3, $4)`, [token, version, profile, optime]);
    // `keep` may be unbounded (no limit): then there is nothing to drop.
    if (version - keep > 0) await this.sql(`delete from ${this.t}.user_versions where token = $1 and version <= $2`, [token, version - keep]);
  }

  async version(token: string, version: number): Promise<{ profile: Buffer; optime: number } | null> {
    const [row] = await this.sql(`select profile, optime from "${this.schema}".user_versions where token = $1 and version = $2`, [token, version]);
    return row ? { profile: row.profile as Buffer, optime: Number(row.optime) } : null;
  }

  /** Whether a version older than `version` is kept: pruning drops the oldest first, so then `version` was not pruned. */
  async keepsVersionBelow(token: string, version: number): Promise<boolean> {
    const [row] = await this.sql(`select exists (select 1 from "${this.schema}".user_versions where token = $1 and version < $2) as kept`, [token, version]);
    return row?.kept === true;
  }

  async versions(token: string): Promise<{ version: number; profile: Buffer; optime: number }[]> {
    const rows = await this.sql(`select version, profile, optime from "${this.schema}".user_versions where token = $1 order by version`, [token]);
    return rows.map((r) => ({ version: Number(r.version), profile: r.profile as Buffer, optime: Number(r.optime) }));
  }
}

/** A taken index value answers 409 naming the field; other errors pass. */
async function indexConflicts<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw indexConflict(err);
  }
}

/**
 * A unique violation as 409: an index column's names its field; a kept version's, a version renumbered by SQL.
 */
function indexConflict(err: unknown): unknown {
  const field = duplicateField(err);
  if (!field && isUniqueViolation(err) && /user_versions/.test(String((err as { constraint?: unknown }).constraint))) return conflict(Messages.versionsAltered);
  return field ? conflict(`Duplicate index: ${field}`) : err;
}

/** The index field a unique violation is about, from the constraint name (`users_email_idx_key`). */
function duplicateField(err: unknown): IndexMode | undefined {
  if (!isUniqueViolation(err)) return undefined;
  const e = err as { constraint?: string; message?: string };
  const text = `${e.constraint ?? ''} ${e.message ?? ''}`;
  const m = /(login|email|phone|custom)_idx/.exec(text);
  return m ? (m[1] as IndexMode) : undefined;
}
