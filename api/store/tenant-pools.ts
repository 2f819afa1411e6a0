// The small pools a tenant's plain statements run on, each connection starting as the tenant's database role
// (database.ts). Their connections together stay within a bound, whatever the number of tenants: a pool is made for
// a tenant when its first statement comes, and the least recently used idle pool is closed to make room for it. When
// every connection is in use, a statement of a tenant with none idle waits, and the next connection given back is
// closed for it instead of kept idle in its own tenant's pool.
import pg from 'pg';
import { reclaimLostConnections } from './pool-guard.js';
import type { Connections } from './sql.js';

/** Connections per tenant pool. */
const PER_TENANT = 2;
/** How long a statement waiting for room waits at most before it looks again. */
const LOOK_AGAIN_MS = 50;

export class TenantPools {
  /** By tenant, the least recently used first. */
  private readonly pools = new Map<number, pg.Pool>();

  constructor(
    private readonly opts: {
      databaseUrl: string;
      /** The connections of all the pools together (STRONGROOM_DB_POOL_MAX). */
      max: number;
      roleOf: (tenantId: number) => string;
      types: pg.CustomTypesConfig | undefined;
      /** How long a connection may stay idle (5 s). */
      idleMs?: number;
    },
  ) {}

  /** The tenant's pool: its own, made now if it has none (closing idle ones beyond the bound). */
  of(tenantId: number): pg.Pool {
    let pool = this.pools.get(tenantId);
    if (pool) {
      // Used now: the most recently used.
      this.pools.delete(tenantId);
      this.pools.set(tenantId, pool);
      return pool;
    }
    this.makeRoom(tenantId, PER_TENANT);
    pool = new pg.Pool({
      connectionString: this.opts.databaseUrl,
      max: Math.min(PER_TENANT, this.opts.max),
      idleTimeoutMillis: this.opts.idleMs ?? 5_000,
      options: `-c role=${this.opts.roleOf(tenantId)}`,
      types: this.opts.types,
    });
    pool.on('error', () => undefined);
    reclaimLostConnections(pool);
    this.pools.set(tenantId, pool);
    return pool;
  }

  /** Statements waiting for room under the bound. */
  private readonly waiting: (() => void)[] = [];

  private readonly handles = new Map<number, Connections>();

  /** The tenant's connections, within the bound (one handle per tenant, made once: statements ask for it each time). */
  pool(tenantId: number): Connections {
    let handle = this.handles.get(tenantId);
    if (!handle) this.handles.set(tenantId, (handle = { connect: () => this.connect(tenantId), release: (client, broken) => this.release(client, broken) }));
    return handle;
  }

  /** The pool each connection given out belongs to. */
  private readonly poolOf = new WeakMap<pg.PoolClient, pg.Pool>();

  private async connect(tenantId: number): Promise<pg.PoolClient> {
    for (;;) {
      const pool = this.of(tenantId);
      // An idle connection of its own, or room for a new one (the pool makes it at once: counted from now), made by
      // closing other tenants' idle pools if need be.
      if (pool.idleCount > 0 || pool.totalCount >= PER_TENANT || this.open < this.opts.max) {
        const client = await pool.connect();
        this.poolOf.set(client, pool);
        return client;
      }
      if (this.makeRoom(tenantId, 1)) continue;
      // Every connection busy, or idle beside a busy one of its pool: the next one given back, or the next look
      // (an idle connection times out on its own, which tells nobody).
      await new Promise<void>((resolve) => {
        const waiter = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          resolve();
        }, LOOK_AGAIN_MS);
        this.waiting.push(waiter);
      });
    }
  }

  /**
   * A connection given back: closed to make room for a statement of another tenant waiting, unless a statement of its
   * own tenant waits in its pool (which takes it as it is: closed, the pool would make another).
   */
  private release(client: pg.PoolClient, broken?: Error): void {
    const pool = this.poolOf.get(client);
    const next = pool && pool.waitingCount === 0 ? this.waiting.shift() : undefined;
    client.release(next ? true : broken);
    next?.();
  }

  /** The connections open in all the pools. */
  get open(): number {
    let n = 0;
    for (const p of this.pools.values()) n += p.totalCount;
    return n;
  }

  /**
   * Closes other tenants' idle pools, the least recently used first, until `need` more connections fit within the
   * bound; answers whether they do.
   */
  private makeRoom(except: number, need: number): boolean {
    let open = this.open;
    for (const [tenantId, pool] of this.pools) {
      if (tenantId === except) continue;
      // A pool with nothing open or waiting costs nothing to make again: it is not kept for ever either.
      const empty = pool.totalCount === 0 && pool.waitingCount === 0;
      if (!empty && open + need <= this.opts.max) return true;
      if (pool.idleCount < pool.totalCount || pool.waitingCount > 0) continue;
      open -= pool.totalCount;
      this.pools.delete(tenantId);
      void pool.end().catch(() => undefined);
    }
    return open + need <= this.opts.max;
  }

  /** A tenant dropped: its pool closed (once the drop has committed: its connections may wait on the drop's locks). */
  drop(tenantId: number): void {
    const pool = this.pools.get(tenantId);
    this.pools.delete(tenantId);
    this.handles.delete(tenantId);
    void pool?.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.end().catch(() => undefined)));
    this.pools.clear();
  }
}
