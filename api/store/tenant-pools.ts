// The small pools a tenant's plain statements run on, each connection starting as the tenant's database role
// (database.ts). Their connections together stay within a bound, whatever the number of tenants: a pool is made for
// a tenant when its first statement comes, and the least recently used idle pool is closed to make room for it. When
// every connection is in use, a statement of a tenant with none idle waits, and the next connection given back is
// closed for it instead of kept idle in its own tenant's pool.
import pg from 'pg';
import { reclaimLostConnections } from './pool-guard.js';

/** Connections per tenant pool. */
const PER_TENANT = 2;

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
    this.makeRoom();
    pool = new pg.Pool({
      connectionString: this.opts.databaseUrl,
      max: Math.min(PER_TENANT, this.opts.max),
      idleTimeoutMillis: 5_000,
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

  /** The tenant's connections, within the bound (`connect` gives a connection; its `release` gives it back). */
  pool(tenantId: number): Pick<pg.Pool, 'connect'> {
    return { connect: () => this.connect(tenantId) } as Pick<pg.Pool, 'connect'>;
  }

  private async connect(tenantId: number): Promise<pg.PoolClient> {
    for (;;) {
      const pool = this.of(tenantId);
      // An idle connection of its own, or room for a new one (the pool makes it at once: counted from now).
      if (pool.idleCount > 0 || pool.totalCount >= PER_TENANT || this.open < this.opts.max) return this.given(await pool.connect());
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** Connections whose release makes room for a waiting statement of another tenant when there is one (set once). */
  private readonly wrapped = new WeakSet<pg.PoolClient>();

  private given(client: pg.PoolClient): pg.PoolClient {
    if (this.wrapped.has(client)) return client;
    this.wrapped.add(client);
    const release = client.release.bind(client);
    client.release = (destroy?: boolean | Error) => {
      const next = this.waiting.shift();
      release(next ? true : destroy);
      next?.();
    };
    return client;
  }

  /** The connections open in all the pools. */
  get open(): number {
    let n = 0;
    for (const p of this.pools.values()) n += p.totalCount;
    return n;
  }

  /** Closes the least recently used idle pools until a new pool's connections fit within the bound. */
  private makeRoom(): void {
    let open = this.open;
    for (const [tenantId, pool] of this.pools) {
      // A pool with nothing open or waiting costs nothing to make again: it is not kept for ever either.
      const empty = pool.totalCount === 0 && pool.waitingCount === 0;
      if (!empty && open + PER_TENANT <= this.opts.max) return;
      if (pool.idleCount < pool.totalCount || pool.waitingCount > 0) continue;
      open -= pool.totalCount;
      this.pools.delete(tenantId);
      void pool.end().catch(() => undefined);
    }
  }

  /** A tenant dropped: its pool closed (once the drop has committed: its connections may wait on the drop's locks). */
  drop(tenantId: number): void {
    const pool = this.pools.get(tenantId);
    this.pools.delete(tenantId);
    void pool?.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.end().catch(() => undefined)));
    this.pools.clear();
  }
}
