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

/**
 * Every value at `a.b.c`, where a path applies to every element of every array on its way (as policy field paths
 * do): `addresses.country` of `{addresses: [{country: 'FI'}, {country: 'SE'}]}` is `['FI', 'SE']`. An array at the
 * end of the path gives its elements.
 */
export function valuesAtPath(source: unknown, path: string): unknown[] {
  let found: unknown[] = [source];
  for (const key of path.split('.')) {
    const next: unknown[] = [];
    const step = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(step);
      else if (typeof v === 'object' && v !== null && Object.hasOwn(v, key)) next.push((v as Record<string, unknown>)[key]);
    };
    found.forEach(step);
    found = next;
  }
  return found.flatMap((v) => (Array.isArray(v) ? v.flat(Infinity) : [v]));
}
