// The benchmarks' own throw-away database on the PostgreSQL beside the vault, reached the way a co-located database
// is: its unix socket (TCP, or another server, with BENCH_DATABASE_URL, whose database is used only to create and
// drop this one).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@localhost/postgres?host=/var/run/postgresql';

/** A new database named `strongroom_<kind>_<random>`: its URL, and `drop` (which ends its connections first). */
export async function benchDatabase(kind: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  const name = `strongroom_${kind}_${randomBytes(5).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
