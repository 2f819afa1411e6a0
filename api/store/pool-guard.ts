// Takes back pooled connections whose server went away. The ORM's controlled transactions (kysely 0.29, under MikroORM) release their
// connection only after a successful BEGIN, COMMIT or ROLLBACK: when the connection is lost mid-transaction these
// fail, and the connection is never released. pg-pool, for its part, may keep an idle connection that ended without
// an error event, and hand it out again. After a database restart the pool was left with its slots taken by dead
// connections, so later calls waited for a connection that never came, and closing the pool never finished.
// Its listener on each connection's 'error' is also the one a checked-out connection needs: pg-pool listens only
// while a connection is idle, and an 'error' with no listener is an uncaught exception (the statement running on
// the connection fails with the same error, and is the answer). Every pool the api draws connections from is guarded.
import type pg from 'pg';

/** How long a dead connection may stay checked out before it is taken back: its holder fails at once. */
const GRACE_MS = 1_000;
/** How often the pool is looked over for dead connections that no event announced. */
const SCAN_MS = 2_000;

interface ClientInternals {
  _queryable?: boolean;
  connection?: { stream?: { destroyed?: boolean } };
}

interface PoolInternals {
  _clients: pg.PoolClient[];
  _idle: { client: pg.PoolClient }[];
  _remove(client: pg.PoolClient): void;
}

const dead = (client: pg.PoolClient) => {
  const c = client as unknown as ClientInternals;
  return c._queryable === false || c.connection?.stream?.destroyed === true;
};

export function reclaimLostConnections(pool: pg.Pool): void {
  const internals = pool as unknown as PoolInternals;
  /** When each dead connection was first seen dead. */
  const seen = new WeakMap<pg.PoolClient, number>();

  /** Takes a dead connection out of the pool: removed when idle, released with an error when held. */
  const reclaim = (client: pg.PoolClient) => {
    if (!internals._clients.includes(client)) return;
    if (internals._idle.some((i) => i.client === client)) {
      internals._remove(client);
      return;
    }
    try {
      // Released with an error, the pool removes the connection and frees its slot.
      client.release(new Error('connection lost while checked out'));
    } catch {
      // Its holder released it meanwhile: the pool removed it (it was dead).
    }
  };

  // Every few seconds: any connection dead for longer than the grace period goes, whatever announced it or not.
  const timer = setInterval(() => {
    const now = Date.now();
    for (const client of [...internals._clients]) {
      if (!dead(client)) continue;
      const since = seen.get(client);
      if (since === undefined) seen.set(client, now);
      else if (now - since >= GRACE_MS) reclaim(client);
    }
  }, SCAN_MS);
  timer.unref();
  // A connection that ends or fails is looked at a grace period later, without waiting for the scan; its 'error'
  // is listened to for its whole life, checked out or idle.
  pool.on('connect', (client) => {
    let watching = false;
    const watch = () => {
      if (watching) return;
      watching = true;
      setTimeout(() => reclaim(client), GRACE_MS).unref();
    };
    client.once('end', watch);
    client.on('error', watch);
  });
  const end = pool.end.bind(pool);
  pool.end = (async () => {
    clearInterval(timer);
    // Connections dead at the close are taken back first, or the pool would wait for them for ever.
    for (const client of [...internals._clients]) if (dead(client)) reclaim(client);
    return end();
  }) as typeof pool.end;
}
