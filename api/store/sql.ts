// Parameterised SQL on the manager's connection (or its open transaction), with server-side parameters:
// bulk rows and bytea values travel as parameters instead of being formatted into the statement text.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';

// pg's own conversion of a parameter to its text form (arrays, dates, objects), so that a value written into a
// statement's text is the value pg would have sent as that parameter.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue: (v: unknown) => string | Buffer | null | undefined };

// The pg pool behind each ORM connection, registered when the database opens. Statements outside a
// transaction go straight to it: the hot read path skips the query builder's executor layers.
const pools = new WeakMap<object, { main: pg.Pool; tenant?: ((tenantId: number) => pg.Pool | undefined) | undefined }>();

/** The main pool, and (with per-tenant roles) the pool for a tenant's plain statements. */
export function registerPool(connection: object, main: pg.Pool, tenant?: (tenantId: number) => pg.Pool | undefined): void {
  pools.set(connection, { main, tenant });
}

// The pool of the key table's own database, when it has one (STRONGROOM_KEYS_DATABASE_URL), by ORM connection.
const keysPools = new WeakMap<object, pg.Pool>();

export function registerKeysPool(connection: object, pool: pg.Pool): void {
  keysPools.set(connection, pool);
}

/** The key database's pool for this manager's vault, or undefined when the key table is in the vault's own database. */
export function keysPoolOf(em: EntityManager): pg.Pool | undefined {
  return keysPools.get(em.getConnection());
}

/**
 * The one way a statement reaches the database. `sql` uses $1, $2… placeholders. Runs inside the manager's
 * transaction when it has one; otherwise a tenant's statement (`tenantId` given) runs as the tenant's database
 * role where there is one.
 */
export async function query<T = Record<string, unknown>>(em: EntityManager, sql: string, params: readonly unknown[] = [], tenantId?: number): Promise<T[]> {
  const own = owned.get(em);
  if (own) return own.query<T>(sql, params);
  const tx = em.getTransactionContext();
  if (!tx) {
    const connection = em.getConnection();
    const registered = pools.get(connection);
    if (registered) {
      const pool = (tenantId !== undefined && registered.tenant?.(tenantId)) || registered.main;
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        return (await runOn(client, sql, params)).rows as T[];
      } catch (err) {
        // A connection that lost its server is not given back (as pg's own pool.query does).
        if (!(err as { code?: unknown }).code) broken = err as Error;
        throw err;
      } finally {
        client.release(broken);
      }
    }
    return (await connection.getClient().executeQuery(CompiledQuery.raw(sql, params as unknown[]))).rows as T[];
  }
  return (await tx.executeQuery(CompiledQuery.raw(sql, params as unknown[]))).rows as T[];
}

/**
 * A statement that ends the manager's transaction: in a write transaction of our own it travels with COMMIT in one
 * round trip, and the transaction takes no statement after it. Elsewhere, a plain statement.
 */
export async function queryThenCommit<T = Record<string, unknown>>(em: EntityManager, sql: string, params: readonly unknown[] = [], tenantId?: number): Promise<T[]> {
  const own = owned.get(em);
  return own ? own.queryThenCommit<T>(sql, params) : query<T>(em, sql, params, tenantId);
}

/** Whether the manager runs in a transaction: one of ours, or the ORM's. */
export function isInTransaction(em: EntityManager): boolean {
  return owned.has(em) || em.isInTransaction();
}

/**
 * Runs `fn` when the manager's transaction commits, or rolls back. False when it is in no transaction (nothing
 * registered). The ORM's transactions get a subscriber on their own event manager, which dies with them.
 */
export function onTransactionEnd(em: EntityManager, event: 'commit' | 'rollback', fn: () => void): boolean {
  const own = owned.get(em);
  if (own) {
    own.on(event, fn);
    return true;
  }
  if (!em.isInTransaction()) return false;
  em.getEventManager().registerSubscriber(event === 'commit' ? { afterTransactionCommit: () => fn() } : { afterTransactionRollback: () => fn() });
  return true;
}

// Prepared statements. Planning the user row's statement (its group roles and key in sub-selects) cost PostgreSQL
// more than executing it (0.5 ms against 0.2 ms per call in pg_stat_statements): each connection keeps the plans of
// the statements it runs, named by a hash of their text, up to PREPARED_PER_CONNECTION of them (a plan lives as
// long as its session), and plans the rest each time. A statement sent with parameters is a named statement of the
// protocol (pg parses it once per connection); one written out in a statement of several commands (BEGIN and the
// role, or COMMIT) is run by EXECUTE of a PREPAREd statement, prepared in the same round trip the first time.
const PREPARED_PER_CONNECTION = 200;
const preparedOn = new WeakMap<pg.ClientBase, Set<string>>();
const statementNames = new Map<string, string>();

/** The statement's name (`p…` for the protocol's, `q…` for PREPARE), the same for the same text in every process. */
function nameOf(kind: 'p' | 'q', sql: string): string {
  let hash = statementNames.get(sql);
  if (!hash) {
    hash = createHash('sha256').update(sql).digest('hex').slice(0, 32);
    // Texts are the code's statements for each tenant: a bounded set, but not one to keep without limit.
    if (statementNames.size >= 10_000) statementNames.clear();
    statementNames.set(sql, hash);
  }
  return `${kind}${hash}`;
}

/** Whether `name` is, or may now become, one of the connection's kept statements; `fresh` when it must be made. */
function keep(client: pg.ClientBase, name: string): { kept: boolean; fresh: boolean } {
  let names = preparedOn.get(client);
  if (!names) preparedOn.set(client, (names = new Set()));
  if (names.has(name)) return { kept: true, fresh: false };
  if (names.size >= PREPARED_PER_CONNECTION) return { kept: false, fresh: false };
  names.add(name);
  return { kept: true, fresh: true };
}

/** A statement with parameters on a connection: as a kept (named) statement while the connection has room. */
function runOn(client: pg.ClientBase, sql: string, params: readonly unknown[]): Promise<pg.QueryResult> {
  const name = nameOf('p', sql);
  if (!keep(client, name).kept) return client.query(sql, params as unknown[]);
  return client.query({ name, text: sql, values: params as unknown[] });
}

/** Parameters above this many characters are not written into a statement's text: BEGIN then goes alone. */
const INLINE_LIMIT = 256 * 1024;

/**
 * A parameter as a literal of the statement's text: the value pg would send, quoted as pg quotes. Bytes, alone or
 * in an array, are written as hex directly (an E'' string, whatever standard_conforming_strings says): hex needs
 * no escaping, and a 12 KB audit seal is not scanned character by character.
 */
function literal(value: unknown): string {
  if (Buffer.isBuffer(value)) return `E'\\\\x${value.toString('hex')}'`;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => v === null || Buffer.isBuffer(v))) {
    // An array literal's element: in double quotes, where a backslash is written twice (and twice again in E'').
    return `E'{${(value as (Buffer | null)[]).map((b) => (b === null ? 'NULL' : `"\\\\\\\\x${b.toString('hex')}"`)).join(',')}}'`;
  }
  const v = prepareValue(value);
  if (v === null || v === undefined) return 'null';
  if (Buffer.isBuffer(v)) return `E'\\\\x${v.toString('hex')}'`;
  return pg.escapeLiteral(v);
}

/** The parameters written out as literals; undefined when too large, or holding a NUL (a statement's text ends at one). */
function literals(params: readonly unknown[]): string[] | undefined {
  const values = params.map(literal);
  if (values.reduce((n, v) => n + v.length, 0) > INLINE_LIMIT || values.some((v) => v.includes('\0'))) return undefined;
  return values;
}

/**
 * `sql` ready to be written into a statement of several commands: EXECUTE of the connection's kept statement with
 * the parameters written out as literals (they take the types the statement was prepared with, as parameters
 * do), preceded the first time by its PREPARE (`prepare`, sent ahead in the same queue); or, when the connection
 * keeps no more statements, `sql` itself with its $n written out (an untyped literal takes its type from the
 * context, as a parameter does). Undefined when the parameters cannot be written out.
 */
function inlined(client: pg.ClientBase, sql: string, params: readonly unknown[]): { text: string; prepare?: string; name?: string } | undefined {
  const values = literals(params);
  if (!values) return undefined;
  const name = nameOf('q', sql);
  const { kept, fresh } = keep(client, name);
  if (kept) return { text: values.length ? `execute ${name}(${values.join(', ')})` : `execute ${name}`, ...(fresh ? { prepare: `prepare ${name} as ${sql}`, name } : {}) };
  return { text: sql.replace(/\$(\d+)(?!\d)/g, (m, n: string) => values[Number(n) - 1] ?? m) };
}

/**
 * A write transaction on a pooled connection of its own (`Database.writeTransaction`), without the ORM's layers.
 * BEGIN and the preamble (the tenant's role) are sent in one round trip with the first statement, its parameters
 * written out (a statement of several commands takes no parameters); COMMIT goes with the last statement
 * (`queryThenCommit`) or alone. A statement after the commit is refused.
 */
export class OwnTransaction {
  private begun = false;
  /** A statement with COMMIT was sent (no statement may follow), and whether that commit is known to have happened. */
  private ending = false;
  private committed = false;
  private settled = false;
  private readonly handlers = { commit: [] as (() => void)[], rollback: [] as (() => void)[] };

  constructor(
    readonly em: EntityManager,
    private readonly client: pg.PoolClient,
    private readonly preamble: string,
  ) {
    owned.set(em, this);
  }

  on(event: 'commit' | 'rollback', fn: () => void): void {
    this.handlers[event].push(fn);
  }

  query<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return this.send<T>(sql, params, false);
  }

  queryThenCommit<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return this.send<T>(sql, params, true);
  }

  /** Commits, unless the last statement did. */
  async commit(): Promise<void> {
    if (this.committed) return;
    this.ending = true;
    if (this.begun) await this.client.query('commit');
    this.settle('commit');
  }

  /**
   * Rolls back what was begun (nothing once committed); rejects when the connection cannot, so that it is not
   * given back to the pool.
   */
  async rollback(): Promise<void> {
    if (this.committed) return;
    this.ending = true;
    try {
      // After a failed COMMIT there is no transaction left: ROLLBACK then only warns.
      if (this.begun) await this.client.query('rollback');
    } finally {
      this.settle('rollback');
    }
  }

  private settle(event: 'commit' | 'rollback'): void {
    if (this.settled) return;
    this.settled = true;
    this.committed = event === 'commit';
    for (const fn of this.handlers[event]) fn();
  }

  // Synchronous up to the client's query: concurrent statements queue on the connection in the order called, so
  // the first one called is the one that carries BEGIN.
  private async send<T>(sql: string, params: readonly unknown[], commit: boolean): Promise<T[]> {
    if (this.ending) throw new Error('statement after the end of the transaction');
    const head = this.begun ? '' : `begin; ${this.preamble}`;
    this.begun = true;
    if (commit) this.ending = true;
    if (!head && !commit) return (await runOn(this.client, sql, params)).rows as T[];
    const statement = inlined(this.client, sql, params);
    let rows: T[];
    if (statement !== undefined) {
      // A PREPARE the first time, queued before the statement that executes it: both leave in this turn, in order.
      const prepared = statement.prepare === undefined ? undefined : this.client.query(statement.prepare);
      const running = this.client.query(`${head}${statement.text}${commit ? '; commit' : ''}`) as unknown as Promise<pg.QueryResult | pg.QueryResult[]>;
      if (prepared) {
        const outcome = await prepared.then(
          () => undefined,
          (err: unknown) => err,
        );
        if (outcome !== undefined) {
          preparedOn.get(this.client)?.delete(statement.name!);
          await running.catch(() => undefined);
          throw outcome;
        }
      }
      const results = await running;
      const all = Array.isArray(results) ? results : [results];
      rows = all[all.length - (commit ? 2 : 1)]!.rows as T[];
    } else {
      // Too large to write out: BEGIN alone, the statement with its parameters, COMMIT alone, queued in this turn
      // in that order (after a failed statement, COMMIT ends the transaction without committing); the first failure
      // is the answer.
      const steps = await Promise.allSettled([head ? this.client.query(head) : undefined, runOn(this.client, sql, params), commit ? this.client.query('commit') : undefined]);
      for (const step of steps) if (step.status === 'rejected') throw step.reason;
      rows = (steps[1] as PromiseFulfilledResult<pg.QueryResult>).value.rows as T[];
    }
    if (commit) this.settle('commit');
    return rows;
  }

}

const owned = new WeakMap<EntityManager, OwnTransaction>();
