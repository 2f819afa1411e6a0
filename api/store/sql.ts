// The one handle statements reach the database through: `Sql`. Three kinds: plain statements on a pool (each on a
// pooled connection, as the tenant's role where there is one), a write transaction of our own on a connection it
// holds (BEGIN with its first statement, COMMIT with its last), and a connection held for a transaction someone
// else began (the audit's append, the auditor's read-only snapshot). Server-side parameters throughout: bulk rows
// and bytea values travel as parameters instead of being formatted into the statement text.
import pg from 'pg';
import { forget, inlined, runOn } from './prepared.js';
import { inStatementSpan } from './statement-names.js';

export type Row = Record<string, unknown>;

export interface Sql {
  /** One statement (`$1, $2…` placeholders): its rows. */
  query<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * A statement that ends the write transaction it runs in: COMMIT travels with it in one round trip, and the
   * transaction takes no statement after it. Outside a transaction of our own, a plain statement.
   */
  queryThenCommit<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * A statement whose rows nobody needs, to run before anything else this handle runs: in a transaction of our own
   * it travels in the round trip of the transaction's next statement (or its COMMIT), and its failure is that
   * statement's, as `failure` maps it (its own errors, recognised; anything else as it is). Elsewhere it runs now.
   */
  later(text: string, params: readonly unknown[], failure?: (err: unknown) => unknown): Promise<void>;
  /** Whether the statements run in one transaction (and see each other's writes). */
  readonly inTransaction: boolean;
  /** Runs `fn` when the transaction commits (or rolls back); false when there is none (nothing registered). */
  onEnd(event: 'commit' | 'rollback', fn: () => void): boolean;
}

/** A statement sent `later` where nothing carries it: now, its failure told by `failure`. */
async function now(sql: Sql, text: string, params: readonly unknown[], failure: (err: unknown) => unknown = (err) => err): Promise<void> {
  await sql.query(text, params).catch((err: unknown) => Promise.reject(failure(err)));
}

/** Where plain statements take a connection, and give it back (`broken`: not to be used again). */
export interface Connections {
  connect(): Promise<pg.PoolClient>;
  release(client: pg.PoolClient, broken?: Error): void;
}

/** A pg pool's connections. */
export function connectionsOf(pool: pg.Pool): Connections {
  return { connect: () => pool.connect(), release: (client, broken) => client.release(broken) };
}

/** Plain statements, each on a connection of `pool` (chosen at each call: a tenant's pool may come and go). */
export class PoolSql implements Sql {
  readonly inTransaction = false;

  constructor(private readonly pool: () => Connections) {}

  query<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return inStatementSpan(text, () => this.send<T>(text, params));
  }

  private async send<T>(text: string, params: readonly unknown[]): Promise<T[]> {
    const connections = this.pool();
    const client = await connections.connect();
    let broken: Error | undefined;
    try {
      return (await runOn(client, text, params)).rows as T[];
    } catch (err) {
      // A connection that lost its server is not given back (as pg's own pool.query does).
      if (!(err as { code?: unknown }).code) broken = err as Error;
      throw err;
    } finally {
      connections.release(client, broken);
    }
  }

  queryThenCommit<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.query<T>(text, params);
  }

  later(text: string, params: readonly unknown[], failure?: (err: unknown) => unknown): Promise<void> {
    return now(this, text, params, failure);
  }

  onEnd(): boolean {
    return false;
  }
}

/**
 * Statements on a connection held for a transaction its holder began and ends (Database.auditTransaction; the
 * auditor's read-only snapshot, `Snapshot.open`).
 */
export class HeldSql implements Sql {
  readonly inTransaction = true;

  constructor(private readonly client: pg.ClientBase) {}

  query<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return inStatementSpan(text, async () => (await this.client.query(text, params as unknown[])).rows as T[]);
  }

  queryThenCommit<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.query<T>(text, params);
  }

  later(text: string, params: readonly unknown[], failure?: (err: unknown) => unknown): Promise<void> {
    return now(this, text, params, failure);
  }

  onEnd(): boolean {
    return false;
  }

  /** A read-only snapshot on `client`, for `work`: every statement sees the database as it was at the first. */
  static async snapshot<T>(client: pg.ClientBase, work: (sql: Sql) => Promise<T>): Promise<T> {
    await client.query('begin isolation level repeatable read read only');
    try {
      return await work(new HeldSql(client));
    } finally {
      await client.query('rollback').catch(() => undefined);
    }
  }
}

/**
 * A write transaction on a pooled connection of its own (`Database.write`), without the ORM's layers. BEGIN and the
 * preamble (the tenant's role) are sent in one round trip with the first statement, its parameters written out (a
 * statement of several commands takes no parameters); COMMIT goes with the last statement (`queryThenCommit`) or
 * alone. A statement after the commit is refused.
 */
export class OwnTransaction implements Sql {
  readonly inTransaction = true;
  private begun = false;
  /** A statement with COMMIT was sent (no statement may follow), and whether that commit is known to have happened. */
  private ending = false;
  private committed = false;
  private settled = false;
  private readonly handlers = { commit: [] as (() => void)[], rollback: [] as (() => void)[] };
  /** Statements sent `later`, written out, to go ahead of the next statement in its round trip. */
  private pending: Ahead[] = [];

  constructor(
    private readonly client: pg.PoolClient,
    private readonly preamble: string,
  ) {}

  onEnd(event: 'commit' | 'rollback', fn: () => void): boolean {
    this.handlers[event].push(fn);
    return true;
  }

  query<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return inStatementSpan(sql, () => this.send<T>(sql, params, false));
  }

  queryThenCommit<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return inStatementSpan(sql, () => this.send<T>(sql, params, true));
  }

  async later(sql: string, params: readonly unknown[], failure: (err: unknown) => unknown = (err) => err): Promise<void> {
    if (this.ending) throw new Error('statement after the end of the transaction');
    const statement = inlined(this.client, sql, params);
    // Too large to write out: a round trip of its own, now.
    if (statement === undefined) return now(this, sql, params, failure);
    this.pending.push({ ...statement, failure });
  }

  /** Commits, unless the last statement did. */
  async commit(): Promise<void> {
    if (this.committed) return;
    if (this.pending.length) {
      // What was sent `later` goes with the COMMIT.
      await inStatementSpan('commit', () => this.send('', [], true), false);
      return;
    }
    this.ending = true;
    if (this.begun) await inStatementSpan('commit', () => this.client.query('commit'), false);
    this.settle('commit');
  }

  /**
   * Rolls back what was begun (nothing once committed); rejects when the connection cannot, so that it is not
   * given back to the pool.
   */
  async rollback(): Promise<void> {
    if (this.committed) return;
    this.ending = true;
    // Statements never sent: their plans were never made on the connection.
    for (const p of this.pending.splice(0)) if (p.name) forget(this.client, p.name);
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
  // the first one called is the one that carries BEGIN. `sql` empty: only what goes ahead of it (with COMMIT).
  private async send<T>(sql: string, params: readonly unknown[], commit: boolean): Promise<T[]> {
    if (this.ending) throw new Error('statement after the end of the transaction');
    const head = this.begun ? '' : `begin; ${this.preamble}`;
    this.begun = true;
    if (commit) this.ending = true;
    const ahead = this.pending.splice(0);
    if (!head && !commit && !ahead.length) return (await runOn(this.client, sql, params)).rows as T[];
    const lead = `${head}${ahead.map((a) => `${a.text}; `).join('')}`;
    const statement = sql === '' ? { text: 'select' } : inlined(this.client, sql, params);
    try {
      const rows = statement !== undefined ? await this.sendWrittenOut<T>([...ahead, statement], lead, commit) : await this.sendApart<T>(sql, params, ahead, lead, commit);
      if (commit) this.settle('commit');
      return rows;
    } catch (err) {
      // A failure of a statement sent ahead is told as that statement tells it.
      for (const a of ahead) {
        const told = a.failure(err);
        if (told !== err) throw told;
      }
      throw err;
    }
  }

  /**
   * The last of `statements` written out, after `lead` (BEGIN, the statements sent ahead) and with COMMIT after it
   * as asked, in one round trip; each statement's PREPARE the first time, queued before it.
   */
  private async sendWrittenOut<T>(statements: readonly Written[], lead: string, commit: boolean): Promise<T[]> {
    // PREPAREs queued before the statements that execute them: all leave in this turn, in order.
    const preparing = this.prepare(statements);
    const running = this.client.query(`${lead}${statements.at(-1)!.text}${commit ? '; commit' : ''}`) as unknown as Promise<pg.QueryResult | pg.QueryResult[]>;
    await preparing.catch(async (err: unknown) => {
      await running.catch(() => undefined);
      throw err;
    });
    const results = await running;
    const all = Array.isArray(results) ? results : [results];
    return all[all.length - (commit ? 2 : 1)]!.rows as T[];
  }

  /**
   * Too large to write out: `lead` (BEGIN, the statements sent ahead) alone, the statement with its parameters,
   * COMMIT alone, queued in this turn in that order (after a failed statement, COMMIT ends the transaction without
   * committing); the first failure is the answer.
   */
  private async sendApart<T>(sql: string, params: readonly unknown[], ahead: readonly Written[], lead: string, commit: boolean): Promise<T[]> {
    const preparing = this.prepare(ahead).then(() => undefined, (err: unknown) => err);
    const steps = await Promise.allSettled([lead ? this.client.query(lead) : undefined, runOn(this.client, sql, params), commit ? this.client.query('commit') : undefined]);
    const unprepared = await preparing;
    if (unprepared !== undefined) throw unprepared;
    for (const step of steps) if (step.status === 'rejected') throw step.reason;
    return (steps[1] as PromiseFulfilledResult<pg.QueryResult>).value.rows as T[];
  }

  /**
   * The PREPAREs `statements` need (their first time on the connection), queued now: settles once all are done,
   * rejecting with the first failure (those statements then forgotten, to be prepared again).
   */
  private async prepare(statements: readonly Written[]): Promise<void> {
    // Each outcome taken at once: a later one failing while an earlier one is awaited is not left unhandled.
    const preparing = statements
      .filter((s) => s.prepare !== undefined)
      .map((s) => ({ name: s.name!, done: this.client.query(s.prepare!).then(() => undefined, (err: unknown) => err) }));
    let failed: unknown;
    for (const p of preparing) {
      const outcome = await p.done;
      if (outcome === undefined) continue;
      forget(this.client, p.name);
      failed ??= outcome;
    }
    if (failed !== undefined) throw failed;
  }
}

/** A statement written out (`inlined`): EXECUTE of a kept plan, with its PREPARE the first time. */
type Written = { text: string; prepare?: string; name?: string };

/** A statement sent `later`, and how its failure is told. */
type Ahead = Written & { failure: (err: unknown) => unknown };
