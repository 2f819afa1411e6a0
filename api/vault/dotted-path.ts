// Dotted paths into JSON objects (`address.city`), as shared records and policy conditions name profile fields.

/** The value at `a.b.c` inside an object; undefined when any step is missing or not an object. */
export function valueAtPath(source: Record<string, unknown>, path: string): unknown {
  let v: unknown = source;
  for (const key of path.split('.')) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}
