// Session advisory locks on a connection of their own, held for work longer than a transaction should be: across
// replicas, one at a time. Closing the session releases the lock, whatever happened to the work.
import pg from 'pg';

/** Waits for the lock `name`, runs `work`, releases it. */
export async function withSessionLock<T>(databaseUrl: string, name: string, work: () => Promise<T>): Promise<T> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock(hashtext($1))', [name]);
    return await work();
  } finally {
    await lock.query('select pg_advisory_unlock(hashtext($1))', [name]).catch(() => {});
    await lock.end().catch(() => {});
  }
}

/** Runs `work` if the lock `name` is free now; undefined when another session holds it. */
export async function trySessionLock<T>(databaseUrl: string, name: string, work: () => Promise<T>): Promise<T | undefined> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    const { rows } = await lock.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [name]);
    if (!rows[0]?.locked) return undefined;
    return await work();
  } finally {
    await lock.end().catch(() => {});
  }
}
