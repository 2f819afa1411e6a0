// Opens the database (embedded PGlite or a real PostgreSQL), runs migrations, and hands out the stores: a tenant's
// (`stores`) and the global schema's (`global`) for plain statements, and those of a write transaction (`write`,
// `writeGlobal`). MikroORM keeps the connection pool and the migrations; every statement goes through `Sql`.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Logger } from 'pino';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded.js';
import { globalMigrations, tenantMigrations } from './migrations/index.js';
import { DigestForm, LEAF_FORM_FLOOR, gateSchema, raiseSchemaMark } from './schema-version.js';
import { connectionsOf, HeldSql, OwnTransaction, PoolSql, type Connections, type Sql } from './sql.js';
import { KEYS_SCHEMA } from './keys-database.js';

import { GLOBAL_SCHEMA, MAIN_TENANT_ID, MAIN_TENANT_NAME, tenantSchema } from './schemas.js';
import { dropTenantRole, grantTenantRole, missingTenantRoles, noRolesAdvice } from './tenant-roles.js';
import { trySessionLock, withSessionLock, SessionLeases } from './session-locks.js';
import { reclaimLostConnections } from './pool-guard.js';
import { TenantPools } from './tenant-pools.js';
import { GlobalStores, Stores } from './stores.js';
import { AUDIT_LOCK_TIMEOUT, AuditStore, type AuditHead, type QueuedEvent } from './audit.js';
import { KEY_SALT_BYTES } from './tenants.js';
import { inStatementSpan } from './statement-names.js';

export { GLOBAL_SCHEMA, MAIN_TENANT_ID, MAIN_TENANT_NAME, tenantSchema };

/** How long a tenant's deletion waits for a lock before it gives up (503, to retry). */
const DROP_LOCK_TIMEOUT = '5s';

export interface DatabaseOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  poolMax: number;
  log: Logger;
}

export class Database {
  private constructor(
    readonly orm: MikroORM,
    readonly embedded: boolean,
    private readonly embeddedServer: EmbeddedPostgres | undefined,
    private readonly databaseUrl: string | undefined,
    private readonly mainPool: pg.Pool,
  ) {
    this.mainConnections = connectionsOf(mainPool);
    this.vaultSql = new PoolSql(() => this.mainConnections);
  }

  /** Plain statements as the vault's own user, each on a connection of the main pool. */
  private readonly vaultSql: Sql;
  private readonly mainConnections: Connections;
  /** The key database's pool, when the wrapped keys live apart (STRONGROOM_KEYS_DATABASE_URL). */
  private keysPool: pg.Pool | undefined;
  /** Per tenant, its stores for plain statements (made once: they hold no connection). */
  private readonly tenantStores = new Map<number, Stores>();
  readonly digestForm = new DigestForm();

  static async open(opts: DatabaseOptions): Promise<Database> {
    let server: EmbeddedPostgres | undefined;
    let connection: { clientUrl: string } | { host: string; port: number; user: string; dbName: string };
    if (opts.databaseUrl) {
      connection = { clientUrl: opts.databaseUrl };
    } else {
      server = await startEmbeddedPostgres(opts.dataDir);
      connection = { host: server.socketDir, port: 5432, user: 'postgres', dbName: 'postgres' };
    }
    const orm = await MikroORM.init({
      ...connection,
      // MikroORM keeps connections, transactions and migrations; every statement is plain SQL (store/sql.ts).
      entities: [],
      extensions: [Migrator],
      // The embedded server runs one statement stream at a time: one connection, and fail loudly instead of hanging.
      pool: { min: 0, max: server ? 1 : opts.poolMax, idleTimeoutMillis: 30_000 },
      // pg reads the whole URL itself, so libpq-style parameters (?host=/socket/dir, sslmode…) are honoured;
      // MikroORM's own parse of clientUrl keeps only host, port, user, password and database.
      driverOptions: { connectionTimeoutMillis: 15_000, ...(opts.databaseUrl ? { connectionString: opts.databaseUrl } : {}) },
      migrations: { migrationsList: [...globalMigrations, ...tenantMigrations], snapshot: false, transactional: true, allOrNothing: true, silent: true },
      discovery: { warnWhenNoEntities: false },
      debug: false,
      allowGlobalContext: true,
    });
    const mainPool = (await orm.em.getConnection().getNativeClient()) as pg.Pool;
    reclaimLostConnections(mainPool);
    const db = new Database(orm, Boolean(server), server, opts.databaseUrl, mainPool);
    if (opts.databaseUrl) await db.setUpIsolation(opts.log);
    try {
      await db.migrate(opts.log);
      await db.digestForm.follow(db.vaultSql, opts.log);
    } catch (err) {
      await db.close();
      throw err;
    }
    return db;
  }

  /** The key database's pool from now on (compose.ts, with STRONGROOM_KEYS_DATABASE_URL). */
  useKeysDatabase(pool: pg.Pool): void {
    this.keysPool = pool;
    this.tenantStores.clear();
  }

  /** The global schema's stores, for plain statements. */
  global(): GlobalStores {
    return new GlobalStores(this.vaultSql);
  }

  /** A tenant's stores for plain statements, each run as the tenant's database role where there is one. */
  stores(tenantId: number): Stores {
    let stores = this.tenantStores.get(tenantId);
    if (!stores) {
      stores = new Stores(new PoolSql(() => this.tenantPool(tenantId) ?? this.mainConnections), tenantId, { vault: this.vaultSql, keys: this.keysPool });
      this.tenantStores.set(tenantId, stores);
    }
    return stores;
  }

  /**
   * A write transaction of the tenant on a pooled connection of its own, as the tenant's role (`asTenant`) where
   * there is one. `work` gets the stores whose statements run in it: BEGIN and the role go with its first statement,
   * COMMIT with its last (`queryThenCommit`) or after `work`; a failure rolls back.
   */
  write<T>(tenantId: number, asTenant: boolean, work: (stores: Stores) => Promise<T>): Promise<T> {
    const role = asTenant && this.roleOf ? `set local role "${this.roleOf(tenantId)}"; ` : '';
    return this.transaction(role, (tx) => work(new Stores(tx, tenantId, { vault: tx, keys: this.keysPool })));
  }

  /** A write transaction on the global schema, as the vault's own user. */
  writeGlobal<T>(work: (stores: GlobalStores) => Promise<T>): Promise<T> {
    return this.transaction('', (tx) => work(new GlobalStores(tx)));
  }

  private async transaction<T>(preamble: string, work: (tx: OwnTransaction) => Promise<T>): Promise<T> {
    const client = await this.mainPool.connect();
    const tx = new OwnTransaction(client, preamble);
    let broken: Error | undefined;
    try {
      const out = await work(tx);
      await tx.commit();
      return out;
    } catch (err) {
      await tx.rollback().catch((e: Error) => (broken = e));
      throw err;
    } finally {
      // A connection that could not even roll back is not given back to the pool.
      client.release(broken);
    }
  }

  /** Connection counts of the pool behind every manager, for the metrics gauge. */
  async poolStats(): Promise<() => { total: number; idle: number; waiting: number }> {
    const pool = this.mainPool;
    return () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  }

  async ping(): Promise<void> {
    await this.vaultSql.query('select 1');
  }

  /**
   * Drops the tenant's schema and everything in it, then its row (credentials and unlocks cascade, and the key salt
   * with it), in one transaction. With a key database apart, the tenant's wrapped keys there go first.
   */
  async dropTenant(tenantId: number): Promise<void> {
    if (tenantId === MAIN_TENANT_ID) throw new Error('the main tenant cannot be dropped');
    await this.keysPool?.query(`delete from ${KEYS_SCHEMA}.subject_keys where tenant_id = $1`, [tenantId]);
    // The drop waits for the tenant's calls in flight to let go of its tables, and every call waits behind the drop's
    // own locks (the tenant's schema, the credentials table whose row policies go with the role): bounded, so that a
    // busy tenant's deletion answers 503 to be retried instead of stalling the vault.
    await this.transaction(`set local lock_timeout = '${DROP_LOCK_TIMEOUT}'; `, async (tx) => {
      await tx.query(`drop schema if exists "${tenantSchema(tenantId)}" cascade`);
      await tx.query(`delete from "${GLOBAL_SCHEMA}".tenants where id = $1`, [tenantId]);
      if (this.roleOf) await dropTenantRole(tx, this.roleOf(tenantId));
    });
    this.tenantStores.delete(tenantId);
    // Only once the drop has committed: closing the pool waits for its connections, and those may be waiting for
    // the locks the drop held (the drop waited for the pool, the pool for the drop: the vault hung).
    this.tenantPools?.drop(tenantId);
  }

  /**
   * Creates the tenant's schema if needed and brings it to the newest migration. One migration run at a time:
   * the migrator is not safe to run twice at once, in this process (a queue) or across replicas (the lock).
   */
  migrateTenant(tenantId: number): Promise<void> {
    const run = this.migrations.then(() => this.withMigrationLock(() => this.migrateTenantNow(tenantId)));
    this.migrations = run.catch(() => undefined);
    return run;
  }

  private migrations: Promise<unknown> = Promise.resolve();
  private async migrateTenantNow(tenantId: number): Promise<void> {
    const schema = tenantSchema(tenantId);
    await this.vaultSql.query(`create schema if not exists "${schema}"`);
    await this.orm.migrator.up({ schema, migrations: tenantMigrations.map((m) => m.name) });
    await this.grantTenantRole(tenantId);
  }

  /** Replicas must not run migrations at the same time: a session advisory lock on a connection of its own. */
  private withMigrationLock<T>(work: () => Promise<T>): Promise<T> {
    return this.databaseUrl ? withSessionLock(this.databaseUrl, 'strongroom:migrate', work) : work();
  }

  /**
   * Runs `work` unless another replica is running work of the same name: a session advisory lock on a connection
   * of its own, for background passes longer than a transaction should be (the periodic audit verification).
   * Undefined when another holds it. The embedded database has one process, hence nobody to exclude.
   */
  /** Locks held for as long as this process wants them (SessionLeases); undefined on the embedded database (one process). */
  sessionLeases(): SessionLeases | undefined {
    return this.databaseUrl ? new SessionLeases(this.databaseUrl) : undefined;
  }

  tryExclusive<T>(name: string, work: () => Promise<T>): Promise<T | undefined> {
    return this.databaseUrl ? trySessionLock(this.databaseUrl, name, work) : work();
  }

  private migrate(log: Logger): Promise<void> {
    return this.withMigrationLock(() => this.migrateAll(log));
  }

  private async migrateAll(log: Logger): Promise<void> {
    const sql = this.vaultSql;
    // No older release beside this one on a new database, nor ever on the embedded one (one process).
    const floor = (await gateSchema(sql, log)).fresh || this.embedded ? LEAF_FORM_FLOOR : undefined;
    await sql.query(`create schema if not exists "${GLOBAL_SCHEMA}"`);
    const done = await this.orm.migrator.up({
      schema: GLOBAL_SCHEMA,
      migrations: globalMigrations.map((m) => m.name),
    });
    if (done.length) log.info({ migrations: done.map((m) => m.name) }, 'global schema migrated');
    const now = Math.floor(Date.now() / 1000);
    await sql.query(
      `insert into "${GLOBAL_SCHEMA}".tenants (id, name, org, email, created, key_salt) values ($1, $2, $3, null, $4, $5)
       on conflict (id) do nothing`,
      [MAIN_TENANT_ID, MAIN_TENANT_NAME, 'Main', now, randomBytes(KEY_SALT_BYTES)],
    );
    // serial must move past the explicit id 1, or the next tenant would collide with the main one; and never
    // back: a deleted tenant's id is not given out again.
    await sql.query(
      `select setval(pg_get_serial_sequence('"${GLOBAL_SCHEMA}".tenants', 'id'),
              greatest((select max(id) from "${GLOBAL_SCHEMA}".tenants), 1,
                (select last_value from pg_sequences where schemaname = $1 and sequencename = 'tenants_id_seq')))`,
      [GLOBAL_SCHEMA],
    );
    const tenants = await sql.query<{ id: number }>(`select id from "${GLOBAL_SCHEMA}".tenants order by id`);
    const missing = this.roleOf ? await missingTenantRoles(sql, tenants.map((t) => t.id), this.roleOf) : [];
    if (missing.length) log.warn({ tenants: missing }, 'tenant database roles missing (a restored database?): re-creating them');
    for (const t of tenants) await this.migrateTenantNow(t.id);
    await raiseSchemaMark(sql, now, floor);
  }

  // The second line of tenant isolation (PostgreSQL only): every tenant has a database role that can use only its
  // own schema. Plain statements of a tenant run on a small pool whose connections start as that role; write
  // transactions switch to it with SET LOCAL ROLE. A query that names another tenant's schema fails in PostgreSQL.
  private tenantPools: TenantPools | undefined;
  /** The tenant's role name; undefined when isolation is off (embedded database, or no right to create roles). */
  roleOf: ((tenantId: number) => string) | undefined;

  private async setUpIsolation(log: Logger): Promise<void> {
    const [me] = await this.vaultSql.query<{ can: boolean; db: string; user: string }>(
      'select (rolsuper or rolcreaterole) as can, current_database() as db, current_user as user from pg_roles where rolname = current_user',
    );
    if (!me?.can) {
      const advice = noRolesAdvice(me?.user ?? 'strongroom');
      log.warn({ sql: advice.sql }, advice.msg);
      return;
    }
    // Role names are cluster-wide: the database's name goes into them, so two vaults on one server never share one.
    const prefix = `sr_${createHash('sha256').update(me.db).digest('hex').slice(0, 10)}_t`;
    this.roleOf = (tenantId) => `${prefix}${tenantId}`;
  }

  /** The pool for a tenant's plain statements, its connections running as the tenant's role (tenant-pools.ts). */
  tenantPool(tenantId: number): Connections | undefined {
    const roleOf = this.roleOf;
    if (!roleOf || !this.databaseUrl) return undefined;
    if (!this.tenantPools) {
      // As many connections as the main pool's (STRONGROOM_DB_POOL_MAX), with its type parsers.
      const { max, types } = (this.mainPool as unknown as { options: { max?: number; types?: pg.CustomTypesConfig } }).options;
      this.tenantPools = new TenantPools({ databaseUrl: this.databaseUrl, max: max ?? 10, roleOf, types });
    }
    return this.tenantPools.pool(tenantId);
  }

  /**
   * A short transaction appending to the tenant's audit trail on a connection of its own, as the vault's own user:
   * the tenant's role may neither lock the head nor append (Database.grantTenantRole). BEGIN, the lock timeout, the
   * head's lock, its proof and the oldest queued events (up to `queueLimit`) travel in one round trip (a statement without
   * parameters may hold several): the head stays locked while `work` has the tokenizer link the batch, then appends.
   * A head held by someone else longer than AUDIT_LOCK_TIMEOUT fails the batch (retried later), never hangs it.
   */
  async auditTransaction<T>(tenantId: number, queueLimit: number, work: (audit: AuditStore, head: AuditHead, queued: QueuedEvent[]) => Promise<T>): Promise<T> {
    const client = await this.mainPool.connect();
    const held = new HeldSql(client);
    const store = new Stores(held, tenantId, { vault: held, keys: this.keysPool }).audit;
    let broken: Error | undefined;
    try {
      // One round trip: BEGIN, the lock timeout, the head's lock, and the queue as it stands once the lock is held.
      const statements = [store.lockHeadStatement, store.headProofStatement, store.queuedStatement(queueLimit)];
      const results = (await inStatementSpan(statements[0]!, () => client.query(`begin; ${AUDIT_LOCK_TIMEOUT}; ${statements.join('; ')}`), false)) as unknown as pg.QueryResult[];
      const head = AuditStore.headOf(results.at(-3)!.rows[0] as Record<string, unknown>, results.at(-2)!.rows[0] as Record<string, unknown> | undefined);
      const out = await work(store, head, results.at(-1)!.rows.map((r) => AuditStore.queuedOf(r as Record<string, unknown>)));
      await inStatementSpan('commit', () => client.query('commit'), false);
      return out;
    } catch (err) {
      await client.query('rollback').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      // A connection that could not even roll back is not given back to the pool.
      client.release(broken);
    }
  }

  /**
   * One statement of the tenant's audit trail in a transaction of its own, as the vault's own user, in one round
   * trip with BEGIN, the lock timeout and COMMIT (`statement` holds its values: no parameters).
   */
  async auditAppendAlone(_tenantId: number, statement: string): Promise<void> {
    const client = await this.mainPool.connect();
    let broken: Error | undefined;
    try {
      await inStatementSpan(statement, () => client.query(`begin; ${AUDIT_LOCK_TIMEOUT}; ${statement}; commit`), false);
    } catch (err) {
      // The statement failed inside the BEGIN: the rest of the text did not run, the transaction is still open.
      await client.query('rollback').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /** The tenant's role and its rights (tenant-roles.ts) in one transaction: no call sees a revoke before its grant. */
  private async grantTenantRole(tenantId: number): Promise<void> {
    if (this.roleOf) await this.transaction('', (tx) => grantTenantRole(tx, { tenantId, role: this.roleOf!(tenantId) }));
  }

  async close(): Promise<void> {
    this.digestForm.stop();
    await this.tenantPools?.close();
    await this.orm.close(true);
    await this.embeddedServer?.close();
  }
}
