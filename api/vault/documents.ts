// Bounds on the JSON documents the vault accepts and keeps: a nesting depth for every value a request carries, and a
// serialised size for every document it seals (profiles, app data, sessions, request payloads). Each is enforced
// in one place: the depth where input is parsed (ops/execute.ts), the size where a document is sealed.
import { badRequest } from '../errors.js';

/** Deeper than this, a value is refused: recursive walkers and JSON.stringify stay far from the stack's end. */
export const MAX_DEPTH = 64;

/**
 * The path of the first value nested deeper than `maxDepth` (objects and arrays count), or null. Iterative, so a
 * value nested 100,000 deep is judged without recursion.
 */
export function tooDeep(value: unknown, maxDepth = MAX_DEPTH): string | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) return path || 'body';
    for (const [key, child] of Object.entries(v)) {
      stack.push({ value: child, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}

/** The document as the bytes that are sealed, or a 400 naming the field when it is larger than `maxBytes`. */
export function documentBytes(field: string, value: unknown, maxBytes: number): Buffer {
  const bytes = Buffer.from(JSON.stringify(value));
  if (bytes.length > maxBytes) throw badRequest(`Invalid API request parameter: ${field}: larger than ${maxBytes} bytes as JSON`);
  return bytes;
}
