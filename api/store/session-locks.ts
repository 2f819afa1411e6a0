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

/**
 * Session advisory locks held for as long as this process wants them, on one connection of their own: the election
 * of one replica per tenant for work that never ends (the privacy events' dispatcher). A replica that stops, or
 * whose connection drops, loses them all at once, and another takes each over at its next try.
 */
export class SessionLeases {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly held = new Set<string>();

  constructor(private readonly databaseUrl: string) {}

  /** Whether this process holds `name` now: taken if free, kept if held. False when the database is away. */
  async hold(name: string): Promise<boolean> {
    if (this.held.has(name) && this.client) return true;
    try {
      const client = await this.connection();
      const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [name]);
      if (rows[0]?.locked) this.held.add(name);
      return rows[0]?.locked === true;
    } catch {
      this.drop();
      return false;
    }
  }

  /** Lets `name` go (its work is gone: a deleted tenant). */
  async release(name: string): Promise<void> {
    if (!this.held.delete(name) || !this.client) return;
    await this.client.query('select pg_advisory_unlock(hashtext($1))', [name]).catch(() => this.drop());
  }

  async close(): Promise<void> {
    const client = this.client;
    this.drop();
    await client?.end().catch(() => {});
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.databaseUrl, application_name: `strongroom-leases-${process.pid}` });
      // A dropped connection released every lock: none is held any more.
      client.on('error', () => this.drop());
      client.on('end', () => this.drop());
      await client.connect();
      this.client = client;
      return client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private drop(): void {
    this.held.clear();
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => {});
  }
}
