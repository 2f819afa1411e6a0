// JSON Merge Patch (RFC 7396) for profiles and app data. The json-merge-patch package stops at a key named
// `constructor` or `prototype` and drops it and every key after it, so an update naming one was answered 200 with
// part of it lost. Here every key is an ordinary key: each is set as an own property of a plain object, which never
// reaches a prototype (the `__proto__` key is refused before any document gets here).

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `target` with `patch` applied: a patch that is not an object replaces it; `null` members remove keys. Mutates `target`. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? target : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      if (Object.hasOwn(out, key)) delete out[key];
      continue;
    }
    const current = Object.hasOwn(out, key) ? out[key] : undefined;
    Object.defineProperty(out, key, { value: applyMergePatch(current, value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A copy of `doc` with `patch` applied; `doc` itself is left as it was. */
export function mergedCopy(doc: unknown, patch: unknown): unknown {
  return applyMergePatch(structuredClone(doc), patch);
}
