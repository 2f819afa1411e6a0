// The key table in a database of its own (STRONGROOM_KEYS_DATABASE_URL): backed up apart and on a short retention,
// it makes restoring an old backup of the data database bring no erased person back. The data database keeps only
// a ledger without key material (tenant_<id>.subject_keys with `wrapped` always null) for its own queries.
import pg from 'pg';

export const KEYS_SCHEMA = 'strongroom_keys';

export class KeysDatabase {
  private constructor(readonly pool: pg.Pool) {}

  static async open(url: string): Promise<KeysDatabase> {
    const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 15_000, idleTimeoutMillis: 30_000 });
    pool.on('error', () => undefined);
    try {
      await pool.query(`create schema if not exists ${KEYS_SCHEMA}`);
      await pool.query(`create table if not exists ${KEYS_SCHEMA}.subject_keys (
        tenant_id int not null,
        token uuid not null,
        wrapped bytea null,
        key_version int null,
        created bigint not null,
        erased bigint null,
        primary key (tenant_id, token))`);
      await pool.query(`create index if not exists subject_keys_version on ${KEYS_SCHEMA}.subject_keys (tenant_id, key_version) where wrapped is not null`);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new KeysDatabase(pool);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
