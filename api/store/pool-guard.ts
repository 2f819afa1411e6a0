// Takes back pooled connections whose server went away. kysely 0.29's controlled transactions release their
// connection only after a successful BEGIN, COMMIT or ROLLBACK: when the connection is lost mid-transaction these
// fail, and the connection is never released. pg-pool, for its part, keeps an idle connection that ended without
// an error event, and hands it out again. After a database restart the pool was left with every slot taken by a
// dead connection, so every later call waited for a connection that never came.
import type pg from 'pg';

/** How long a lost connection may stay checked out before it is taken back: its holder fails at once. */
const GRACE_MS = 1_000;

interface PoolInternals {
  _clients: pg.PoolClient[];
  _idle: { client: pg.PoolClient }[];
  _remove(client: pg.PoolClient): void;
}

export function reclaimLostConnections(pool: pg.Pool): void {
  const internals = pool as unknown as PoolInternals;
  /** Until the ended connection has left the pool: removed when idle, released with an error when held. */
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
      // Its holder released it meanwhile: the pool has removed it (it had ended), or will on its next check.
    }
    setTimeout(() => reclaim(client), GRACE_MS).unref();
  };
  pool.on('connect', (client) => {
    client.once('end', () => setTimeout(() => reclaim(client), GRACE_MS).unref());
  });
}
