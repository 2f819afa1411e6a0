// A statement's name for its span: its kind (the first keyword, from a fixed list) and the first table it names,
// read from the statement's text with its literals blanked (most statements carry their values as parameters; a few
// are written out). Never the text or a value: a word that is not a plain identifier is left out.
import { SpanKind } from '@opentelemetry/api';
import { inChildSpan, recording } from '../../proto/tracing.js';

const KINDS = new Set([
  'select', 'insert', 'update', 'delete', 'with', 'begin', 'commit', 'rollback', 'set', 'create', 'drop', 'alter', 'grant',
  'revoke', 'lock', 'prepare', 'execute', 'deallocate', 'copy', 'truncate', 'savepoint', 'release', 'show', 'do', 'values',
  'notify', 'listen', 'reset', 'discard', 'merge', 'call', 'analyze', 'vacuum',
]);
const TABLE = /\b(?:from|into|update|join|table)\s+((?:"?[a-z_][a-z0-9_]*"?\.)?"?([a-z_][a-z0-9_]*)"?)/i;
/** A select of a function alone (`select t_1.events_publish($1)`, `select pg_advisory_xact_lock(…)`). */
const FUNCTION = /^\s*(select)\s+(?:"?[a-z_][a-z0-9_]*"?\.)?"?([a-z_][a-z0-9_]*)"?\s*\(/i;
/** Tables whose names hold nothing but the code's words; a tenant's schema is left out (its name holds its id). */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export interface StatementName {
  /** `select users`, `insert audit_events`, `commit`: the span's name. */
  summary: string;
  operation: string;
  table: string | undefined;
}

/** Literals, dollar-quoted bodies and comments: a value written into a statement is never read for its name. */
const NOT_CODE = /'(?:[^']|'')*'?|\$\$[\s\S]*?(?:\$\$|$)|--[^\n]*/g;

export function statementName(text: string): StatementName {
  const code = text.slice(0, 4096).replace(NOT_CODE, "''");
  const word = /^\s*([a-z]+)/i.exec(code)?.[1]?.toLowerCase();
  const operation = word && KINDS.has(word) ? word : 'other';
  const table = (TABLE.exec(code) ?? FUNCTION.exec(code))?.[2]?.toLowerCase();
  const kept = table && IDENTIFIER.test(table) ? table : undefined;
  return { summary: kept ? `${operation} ${kept}` : operation, operation, table: kept };
}

/**
 * `work` (which sends `text`) in a statement span when its request is traced; `rows`: its result is the rows (the
 * span counts them).
 */
export function inStatementSpan<T>(text: string, work: () => Promise<T>, rows = true): Promise<T> {
  if (!recording()) return work();
  const { summary, operation, table } = statementName(text);
  const attributes = { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.summary': summary, ...(table ? { 'db.collection.name': table } : {}) };
  return inChildSpan(summary, () => attributes, SpanKind.CLIENT, async (span) => {
    const result = await work();
    if (span && rows && Array.isArray(result)) span.setAttribute('db.response.returned_rows', result.length);
    return result;
  });
}
