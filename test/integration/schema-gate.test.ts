// The schema version gate: a replica refuses to start against a database a newer release migrated past what this
// code may run against, with what to do; it starts when that release declared the schema compatible with it; and
// the mark it leaves never moves back. The mark and the check on both databases; a second replica refused at its
// start on PostgreSQL (the embedded database's data directory is one process's at a time).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../fixtures/database.js';
import { Database } from '../../api/store/database.js';
import { COMPATIBLE_FROM, LEAF_FORM_FLOOR, SCHEMA_VERSION, SchemaTooNewError, checkSchema, raiseSchemaMark, schemaMark } from '../../api/store/schema-version.js';
import { completeUpgrade } from '../../api/upgrade-complete.js';

const log = pino({ level: 'silent' });
let testDb: TestDatabase | undefined;
let dir: string | undefined;
const open: Database[] = [];

afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
  await testDb?.drop();
  testDb = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function replica(): Promise<Database> {
  const db = usingPostgres()
    ? await Database.open({ dataDir: '/nonexistent', databaseUrl: (testDb ??= await createTestDatabase()).url, poolMax: 2, log })
    : await Database.open({ dataDir: (dir ??= mkdtempSync(join(tmpdir(), 'sr-gate-'))), poolMax: 1, log });
  open.push(db);
  return db;
}

const setMark = (db: Database, version: number, floor: number) => db.global().sql.query('update strongroom.schema_version set version = $1, floor = $2 where id = 1', [version, floor]);

describe('the schema version gate', () => {
  it('marks a database with this release, refuses a newer incompatible one, and takes a newer compatible one', async () => {
    const db = await replica();
    const sql = db.global().sql;
    // A new database: no older release ever ran on it, so the floor is the leaf form's at once.
    expect(await schemaMark(sql)).toEqual({ version: SCHEMA_VERSION, floor: LEAF_FORM_FLOOR });
    expect(db.digestForm.leaf).toBe(true);

    await setMark(db, SCHEMA_VERSION + 5, SCHEMA_VERSION + 1);
    expect(() => checkSchema({ version: SCHEMA_VERSION + 5, floor: SCHEMA_VERSION + 1 })).toThrow(SchemaTooNewError);
    const mark = await schemaMark(sql);
    expect(() => checkSchema(mark)).toThrow(new RegExp(`schema ${SCHEMA_VERSION + 5}.*this release is schema ${SCHEMA_VERSION}.*restore the backup`));

    await setMark(db, SCHEMA_VERSION + 5, SCHEMA_VERSION);
    expect(checkSchema(await schemaMark(sql))).toEqual({ newer: true });
    // What this release writes at its start moves the mark back in nothing.
    await raiseSchemaMark(sql, 1);
    expect(await schemaMark(sql)).toEqual({ version: SCHEMA_VERSION + 5, floor: Math.max(SCHEMA_VERSION, COMPATIBLE_FROM) });
    // An older database (or none marked yet) is this release's to migrate.
    expect(checkSchema({ version: SCHEMA_VERSION - 1, floor: 1 })).toEqual({ newer: false });
    expect(checkSchema(null)).toEqual({ newer: false });
  });

  it.skipIf(!usingPostgres())('refuses to start a replica on a database a newer incompatible release migrated, and starts it on a compatible one (PostgreSQL: a second process on one database)', async () => {
    const first = await replica();
    await setMark(first, SCHEMA_VERSION + 5, SCHEMA_VERSION + 1);
    const refused = await replica().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(SchemaTooNewError);
    await setMark(first, SCHEMA_VERSION + 5, SCHEMA_VERSION);
    const second = await replica();
    expect(await schemaMark(second.global().sql)).toEqual({ version: SCHEMA_VERSION + 5, floor: Math.max(SCHEMA_VERSION, COMPATIBLE_FROM) });
  });

  it.skipIf(!usingPostgres())('chains in the first form on a database an older release migrated, and in the leaf form once upgrade:complete ran (PostgreSQL: the embedded database is one process)', async () => {
    const first = await replica();
    // As 0.1's database is once 0.2 has migrated it: marked, the floor 0.1 may run against.
    await setMark(first, SCHEMA_VERSION, COMPATIBLE_FROM);
    const second = await replica();
    expect(await schemaMark(second.global().sql)).toEqual({ version: SCHEMA_VERSION, floor: COMPATIBLE_FROM });
    expect(second.digestForm.leaf).toBe(false);
    const { before, after } = await completeUpgrade(testDb!.url!);
    expect(before.floor).toBe(COMPATIBLE_FROM);
    expect(after).toEqual({ version: SCHEMA_VERSION, floor: LEAF_FORM_FLOOR });
    // The running replica sees the raised floor by itself (it looks every 10 s while it writes the first form).
    await expect.poll(() => second.digestForm.leaf, { timeout: 15_000, interval: 200 }).toBe(true);
    expect((await completeUpgrade(testDb!.url!)).before.floor).toBe(LEAF_FORM_FLOOR);
  });
});
