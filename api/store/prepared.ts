// Prepared statements. Planning the user row's statement (its group roles and key in sub-selects) cost PostgreSQL
// more than executing it (0.5 ms against 0.2 ms per call in pg_stat_statements): each connection keeps the plans of
// the statements it runs, named by a hash of their text, up to PREPARED_PER_CONNECTION of them (a plan lives as
// long as its session), and plans the rest each time. A statement sent with parameters is a named statement of the
// protocol (pg parses it once per connection); one written out in a statement of several commands (BEGIN and the
// role, or COMMIT) is run by EXECUTE of a PREPAREd statement, prepared in the same round trip the first time.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { literals, writtenOut } from './statement-text.js';

const PREPARED_PER_CONNECTION = 200;
const statementNames = new Map<string, string>();

/** The names of the statements a connection keeps: state of the connection, carried on it. */
const KEPT = Symbol('strongroom.kept');
type Keeping = pg.ClientBase & { [KEPT]?: Set<string> };

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
  const names = ((client as Keeping)[KEPT] ??= new Set());
  if (names.has(name)) return { kept: true, fresh: false };
  if (names.size >= PREPARED_PER_CONNECTION) return { kept: false, fresh: false };
  names.add(name);
  return { kept: true, fresh: true };
}

/** The connection no longer keeps `name` (its PREPARE failed). */
export function forget(client: pg.ClientBase, name: string): void {
  (client as Keeping)[KEPT]?.delete(name);
}

/** A statement with parameters on a connection: as a kept (named) statement while the connection has room. */
export function runOn(client: pg.ClientBase, sql: string, params: readonly unknown[]): Promise<pg.QueryResult> {
  const name = nameOf('p', sql);
  if (!keep(client, name).kept) return client.query(sql, params as unknown[]);
  return client.query({ name, text: sql, values: params as unknown[] });
}

/** The statements PREPARE accepts. */
const PREPARABLE = /^\s*(select|insert|update|delete|merge|values|with)\b/i;

/**
 * `sql` ready to be written into a statement of several commands: EXECUTE of the connection's kept statement with
 * the parameters written out as literals (they take the types the statement was prepared with, as parameters
 * do), preceded the first time by its PREPARE (`prepare`, sent ahead in the same queue); or, when the connection
 * keeps no more statements, `sql` itself with its $n written out. Undefined when the parameters cannot be written out.
 */
export function inlined(client: pg.ClientBase, sql: string, params: readonly unknown[]): { text: string; prepare?: string; name?: string } | undefined {
  const values = literals(params);
  if (!values) return undefined;
  // PREPARE takes only these; anything else (a schema's DROP, a DO block) is written out as it is.
  if (!PREPARABLE.test(sql)) return { text: writtenOut(sql, values) };
  const name = nameOf('q', sql);
  const { kept, fresh } = keep(client, name);
  if (kept) return { text: values.length ? `execute ${name}(${values.join(', ')})` : `execute ${name}`, ...(fresh ? { prepare: `prepare ${name} as ${sql}`, name } : {}) };
  return { text: writtenOut(sql, values) };
}
