// Parameters written into a statement's text. A statement of several commands (BEGIN and the role with the first
// statement, or COMMIT with the last) takes no parameters, so its values travel as literals; these are the values
// pg would have sent as parameters, quoted as pg quotes (test/unit/api/store/statement-text.test.ts holds them to
// the driver's own parameter path).
import { createRequire } from 'node:module';
import pg from 'pg';

// pg's own conversion of a parameter to its text form (arrays, dates, objects), so that a value written into a
// statement's text is the value pg would have sent as that parameter.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue: (v: unknown) => string | Buffer | null | undefined };

/** Parameters above this many characters are not written into a statement's text: BEGIN then goes alone. */
export const INLINE_LIMIT = 256 * 1024;

/**
 * A parameter as a literal of the statement's text: the value pg would send, quoted as pg quotes. Bytes, alone or
 * in an array, are written as hex directly (an E'' string, whatever standard_conforming_strings says): hex needs
 * no escaping, and a 12 KB audit seal is not scanned character by character.
 */
export function literal(value: unknown): string {
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
export function literals(params: readonly unknown[]): string[] | undefined {
  const values = params.map(literal);
  if (values.reduce((n, v) => n + v.length, 0) > INLINE_LIMIT || values.some((v) => v.includes('\0'))) return undefined;
  return values;
}

/** `sql` with its $1, $2… replaced by `values` (an untyped literal takes its type from the context, as a parameter does). */
export function writtenOut(sql: string, values: readonly string[]): string {
  return sql.replace(/\$(\d+)(?!\d)/g, (m, n: string) => values[Number(n) - 1] ?? m);
}
