// Bounds on the JSON documents the vault accepts and keeps: a nesting depth for every value a request carries, and a
// serialised size for every document it seals (profiles, app data, sessions, request payloads). Each is enforced
// in one place: the depth where input is parsed (ops/execute.ts), the size where a document is sealed.
import { badRequest } from '../errors.js';

/** Deeper than this, a value is refused: recursive walkers and JSON.stringify stay far from the stack's end. */
export const MAX_DEPTH = 64;

/**
 * The path of the first value nested deeper than `maxDepth` (objects and arrays count), or null. Iterative, so a
 * value nested 100,000 deep is judged without recursion. Only objects and arrays are stacked, and a path is
 * spelled out only for the value refused: a bulk request's thousand flat profiles cost no allocation per field.
 */
export function tooDeep(value: unknown, maxDepth = MAX_DEPTH): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const stack: Frame[] = [{ value, key: '', depth: 0, parent: undefined }];
  while (stack.length) {
    const frame = stack.pop()!;
    if (frame.depth >= maxDepth) return pathOf(frame) || 'body';
    const v = frame.value as Record<string, unknown>;
    for (const key of Object.keys(v)) {
      const child = v[key];
      if (typeof child === 'object' && child !== null) stack.push({ value: child, key, depth: frame.depth + 1, parent: frame });
    }
  }
  return null;
}

interface Frame {
  value: object;
  key: string;
  depth: number;
  parent: Frame | undefined;
}

/** The dotted path of a stacked value, from the top (an empty key adds no segment where the path is still empty). */
function pathOf(frame: Frame): string {
  const keys: string[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) keys.push(f.key);
  let path = '';
  for (let i = keys.length - 1; i >= 0; i--) path = path ? `${path}.${keys[i]}` : keys[i]!;
  return path;
}

/** The document as the bytes that are sealed, or a 400 naming the field when it is larger than `maxBytes`. */
export function documentBytes(field: string, value: unknown, maxBytes: number): Buffer {
  const bytes = Buffer.from(JSON.stringify(value));
  if (bytes.length > maxBytes) throw badRequest(`Invalid API request parameter: ${field}: larger than ${maxBytes} bytes as JSON`);
  return bytes;
}
