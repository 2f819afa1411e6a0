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

/** 1: 0.1; 2: 0.2 (audit digests of the leaf form, privacy events, audit sinks). */
export const SCHEMA_VERSION = 2;
/** 0.1's code misreads the leaf-form digests 0.2 writes (its verifier calls the trail broken): 2. */
export const COMPATIBLE_FROM = 2;

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

/** Before anything is migrated: refuses a database a newer release migrated past what this code may run against. */
export async function gateSchema(sql: Sql, log: Logger): Promise<void> {
  if (checkSchema(await schemaMark(sql)).newer) log.info({ schema: SCHEMA_VERSION }, 'the database is of a newer release, which declared this one compatible: running on it');
}

/** Raises the mark to this release's version and floor (never lowers either). */
export async function raiseSchemaMark(sql: Sql, now: number): Promise<void> {
  await sql.query(
    `insert into "${GLOBAL_SCHEMA}".schema_version (id, version, floor, updated) values (1, $1, $2, $3)
     on conflict (id) do update set version = greatest(schema_version.version, excluded.version),
       floor = greatest(schema_version.floor, excluded.floor), updated = excluded.updated`,
    [SCHEMA_VERSION, COMPATIBLE_FROM, now],
  );
}
