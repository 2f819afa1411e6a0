// `npm run upgrade:complete`: the contract step of an upgrade to 0.2, run once every replica runs 0.2 (no 0.1 pod
// left, the rollout finished). It raises the database's schema floor to LEAF_FORM_FLOOR (store/schema-version.ts):
// from then on 0.2 chains audit events in the leaf form, which 0.1 cannot read, so going back to 0.1 means restoring
// a backup. Running replicas see the new floor within seconds; nothing restarts. Idempotent.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { connectionsOf, PoolSql } from './store/sql.js';
import { LEAF_FORM_FLOOR, SCHEMA_VERSION, raiseSchemaMark, schemaMark, type SchemaMark } from './store/schema-version.js';

/** Raises the floor of a database this release has migrated; answers the mark before and after. */
export async function completeUpgrade(databaseUrl: string): Promise<{ before: SchemaMark; after: SchemaMark }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const sql = new PoolSql(() => connectionsOf(pool));
    const before = await schemaMark(sql);
    if (!before || before.version < SCHEMA_VERSION) {
      throw new Error(`this database is not migrated by this release (schema ${SCHEMA_VERSION}) yet: start this release's replicas first`);
    }
    await raiseSchemaMark(sql, Math.floor(Date.now() / 1000), LEAF_FORM_FLOOR);
    return { before, after: (await schemaMark(sql))! };
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'database-url': { type: 'string' } } });
  const url = values['database-url'] ?? process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('usage: npm run upgrade:complete -- --database-url <url> (or DATABASE_URL). The embedded database needs no such step.\n');
    process.exit(2);
  }
  const { before, after } = await completeUpgrade(url);
  process.stdout.write(
    before.floor >= LEAF_FORM_FLOOR
      ? `already complete: schema ${after.version}, floor ${after.floor}\n`
      : `upgrade complete: schema ${after.version}, floor ${before.floor} -> ${after.floor}; the audit trail is chained in the leaf form from now on, and going back to an older release means restoring a backup\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`upgrade:complete failed: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
