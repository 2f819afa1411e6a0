// The schema version gate. Each release has a schema version; the database keeps the newest version that migrated
// it and the oldest version of the code that may still run against it (its floor). A replica older than the
// database starts only when the newer release declared the schema compatible with it (expand-only migrations keep
// the floor); otherwise it refuses to start, with what to do, instead of misreading data it does not know.
//
// With every release that adds a migration or changes a stored format, raise SCHEMA_VERSION. Raise COMPATIBLE_FROM to
// the oldest schema version whose code still runs correctly on the schema this release leaves: an added table,
// column or function keeps it; a removed or renamed one, or a stored format older code misreads, raises it.
import type { Logger } from 'pino';
import type { Sql } from './sql.js';
import { GLOBAL_SCHEMA } from './schemas.js';

/** 1: 0.1.0; 2: 0.2.0 (the schema mark; the audit chain's leaf form, see LEAF_FORM_FLOOR). */
export const SCHEMA_VERSION = 2;
/**
 * 0.2.0's migrations only add (a table), and it writes the trail in the digest form 0.1.0 reads until the floor is
 * raised to LEAF_FORM_FLOOR: 0.1.0's code runs beside it, and a rollback to 0.1.0 needs no restore until then.
 */
export const COMPATIBLE_FROM = 1;
/**
 * The floor from which the audit chain is written in the leaf form (proto/audit-checkpoint.ts), which 0.1.0's
 * verifier and tokenizer cannot read: raised by `npm run upgrade:complete` once no 0.1.0 replica runs, and from the
 * start on a database no older release ever ran on (a new one, or the embedded one: a single process).
 */
export const LEAF_FORM_FLOOR = 2;
/** How often a replica writing the first form looks whether the floor was raised meanwhile. */
const FORM_REFRESH_MS = 10_000;

export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

export interface SchemaMark {
  version: number;
  floor: number;
}

/** The database's mark; null before any release with the gate migrated it. */
export async function schemaMark(sql: Sql): Promise<SchemaMark | null> {
  const [exists] = await sql.query<{ t: string | null }>(`select to_regclass('"${GLOBAL_SCHEMA}".schema_version')::text as t`);
  if (!exists?.t) return null;
  const [row] = await sql.query<{ version: number; floor: number }>(`select version, floor from "${GLOBAL_SCHEMA}".schema_version where id = 1`);
  return row ? { version: Number(row.version), floor: Number(row.floor) } : null;
}

/** Throws when this code may not run against a database with `mark`; answers whether the database is newer. */
export function checkSchema(mark: SchemaMark | null, ours = SCHEMA_VERSION): { newer: boolean } {
  if (!mark || mark.version <= ours) return { newer: false };
  if (mark.floor > ours) {
    throw new SchemaTooNewError(
      `this database was migrated by a newer release (schema ${mark.version}), which code older than schema ${mark.floor} cannot run against; ` +
        `this release is schema ${ours}. Run the newer release, or, to go back, restore the backup taken before the upgrade (docs/operations.md, "Upgrading")`,
    );
  }
  return { newer: true };
}

/**
 * Before anything is migrated: refuses a database a newer release migrated past what this code may run against.
 * Answers whether the database is new (no release migrated it before).
 */
export async function gateSchema(sql: Sql, log: Logger): Promise<{ fresh: boolean }> {
  if (checkSchema(await schemaMark(sql)).newer) log.info({ schema: SCHEMA_VERSION }, 'the database is of a newer release, which declared this one compatible: running on it');
  return { fresh: !(await migratedBefore(sql)) };
}

/** Raises the mark to this release's version and `floor` (never lowers either). */
export async function raiseSchemaMark(sql: Sql, now: number, floor = COMPATIBLE_FROM): Promise<void> {
  await sql.query(
    `insert into "${GLOBAL_SCHEMA}".schema_version (id, version, floor, updated) values (1, $1, $2, $3)
     on conflict (id) do update set version = greatest(schema_version.version, excluded.version),
       floor = greatest(schema_version.floor, excluded.floor), updated = excluded.updated`,
    [SCHEMA_VERSION, floor, now],
  );
}

/** Whether any release migrated this database before (its global migrations table has a row). */
async function migratedBefore(sql: Sql): Promise<boolean> {
  const [t] = await sql.query<{ t: string | null }>(`select to_regclass('"${GLOBAL_SCHEMA}".mikro_orm_migrations')::text as t`);
  if (!t?.t) return false;
  const [row] = await sql.query<{ n: number }>(`select count(*)::int as n from "${GLOBAL_SCHEMA}".mikro_orm_migrations`);
  return Number(row?.n) > 0;
}

/**
 * The digest form this replica chains in: the leaf form once the database's floor allows it. Read at start, then
 * again every FORM_REFRESH_MS until it does (the floor only rises). A first-form event chained by a replica that has
 * not looked yet is sound: every verifier of this release reads both forms.
 */
export class DigestForm {
  private floor = 0;
  private timer: NodeJS.Timeout | undefined;

  get leaf(): boolean {
    return this.floor >= LEAF_FORM_FLOOR;
  }

  async follow(sql: Sql, log: Logger): Promise<void> {
    await this.read(sql);
    if (this.leaf) return;
    log.info({ floor: this.floor }, 'the audit trail is chained in the first digest form, which older releases read, until `npm run upgrade:complete`');
    this.timer = setInterval(() => {
      this.read(sql).then(
        () => this.leaf && log.info({ floor: this.floor }, 'upgrade completed: the audit trail is chained in the leaf form from now on'),
        () => undefined,
      );
    }, FORM_REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async read(sql: Sql): Promise<void> {
    this.floor = Math.max(this.floor, (await schemaMark(sql))?.floor ?? 0);
    if (this.leaf) this.stop();
  }
}
