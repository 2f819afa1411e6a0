// Fields a request sends that its operation does not read: ignored, as the contract asks (the SDKs send extra
// fields), but named in the answer's `warnings`, so a typo (`finaltme`) is seen rather than silently dropped.
import { z } from 'zod';
import type { OpDefinition } from './define.js';
import { didYouMean } from '../vault/nearest-names.js';

/** Fields every operation takes beside its own. */
const EVERYWHERE = ['request_metadata'];
/** Warnings named one by one; past these, one more says how many were left unnamed. */
const MOST_NAMED = 20;
/** A field name longer than this is shortened in its warning. */
const LONGEST_SHOWN = 100;

/** The top-level fields an operation reads. */
export function fieldsOf(op: OpDefinition): string[] {
  return [...(op.input instanceof z.ZodObject ? Object.keys(op.input.shape) : []), ...EVERYWHERE];
}

/** One warning per field of `body` that `op` does not read, naming it and the nearest fields it does. */
export function unknownFieldWarnings(op: OpDefinition, body: Record<string, unknown>): string[] {
  const known = fieldsOf(op);
  const unknown = Object.keys(body).filter((f) => !known.includes(f));
  const named = unknown.slice(0, MOST_NAMED).map((f) => {
    const shown = f.length > LONGEST_SHOWN ? `${f.slice(0, LONGEST_SHOWN)}…` : f;
    return `unknown field ${JSON.stringify(shown)} ignored${didYouMean(f, known)}`;
  });
  if (unknown.length > MOST_NAMED) named.push(`${unknown.length - MOST_NAMED} more unknown fields ignored`);
  return named;
}

/** The answer with its warnings (the operation's own, then the request's unknown fields), if there are any. */
export function withWarnings(result: Record<string, unknown>, warnings: readonly string[]): Record<string, unknown> {
  const own = Array.isArray(result.warnings) ? (result.warnings as string[]) : [];
  const all = [...own, ...warnings];
  return all.length ? { ...result, warnings: all } : result;
}
