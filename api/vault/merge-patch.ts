// JSON Merge Patch (RFC 7396) for profiles and app data. The json-merge-patch package stops at a key named
// `constructor` or `prototype` and drops it and every key after it, so an update naming one was answered 200 with
// part of it lost. Here every key is an ordinary key: each is set as an own property of a plain object, which never
// reaches a prototype (the `__proto__` key is refused before any document gets here).

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `target` with `patch` applied: a patch that is not an object replaces it; `null` members remove keys. Mutates `target`. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return merged(target, patch, false);
}

/**
 * The merge of RFC 7396 section 2. With `copy`, each object the patch reaches is copied (shallowly) before it is
 * changed, so `target` is left as it was and shares every member the patch does not reach; else it is changed in place.
 */
function merged(target: unknown, patch: unknown, copy: boolean): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? (copy ? { ...target } : target) : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      if (Object.hasOwn(out, key)) delete out[key];
      continue;
    }
    const current = Object.hasOwn(out, key) ? out[key] : undefined;
    Object.defineProperty(out, key, { value: merged(current, value, copy), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A copy of `doc` with `patch` applied; `doc` itself is left as it was. */
export function mergedCopy(doc: unknown, patch: unknown): unknown {
  return applyMergePatch(structuredClone(doc), patch);
}

/**
 * `doc` with `patch` applied, as `mergedCopy` makes it, but copying only the objects the patch reaches: every other
 * member is shared with `doc`. Neither document may be changed afterwards (a profile's update reads both, and seals
 * the new one). A `__proto__` key is copied as an ordinary member, as everywhere here.
 */
export function mergedShared(doc: unknown, patch: unknown): unknown {
  return merged(doc, patch, true);
}

/**
 * The merge patch that turns `from` into `to` (`mergedCopy(from, patch)` equals `to`), or undefined when there is none
 * (either is not an object, or `to` holds a null, which a merge patch cannot set). Arrays and other values that
 * differ are carried whole; objects on both sides, member by member.
 */
export function mergePatchBetween(from: unknown, to: unknown): Record<string, unknown> | undefined {
  if (!isObject(from) || !isObject(to) || !isPlainJson(from) || !isPlainJson(to)) return undefined;
  return patchBetween(from, to);
}

/**
 * The merge patch back from `to` to `from`, given `patch`, the one `mergePatchBetween(from, to)` made: equal to
 * `mergePatchBetween(to, from)`, made from the patch's keys alone (what each changed member held in `from`) instead
 * of a second walk over both documents. Undefined when there is none (`from` held a null where it changed).
 */
export function mergePatchBack(from: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> | undefined {
  const back: Record<string, unknown> = {};
  for (const key of Object.keys(patch)) {
    const change = patch[key];
    const had = Object.hasOwn(from, key);
    const was = had ? from[key] : undefined;
    let value: unknown;
    if (!had) value = null;
    else if (isObject(was) && isObject(change)) {
      // Objects on both sides: the patch went member by member, and so does the way back.
      value = mergePatchBack(was, change);
      if (value === undefined) return undefined;
    } else {
      if (holdsNull(was)) return undefined;
      value = was;
    }
    Object.defineProperty(back, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return back;
}

/**
 * Whether JSON keeps `value` as it is: null, a boolean, a finite number, a string, or an array or plain object of
 * those. Anything else (undefined, a Date, NaN) JSON would change on the way, and a patch drafted from it would not
 * make again what was sealed.
 */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && Object.values(value).every(isPlainJson);
}

function patchBetween(from: Record<string, unknown>, to: Record<string, unknown>): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => Object.defineProperty(patch, key, { value, enumerable: true, writable: true, configurable: true });
  for (const key of Object.keys(from)) if (!Object.hasOwn(to, key)) set(key, null);
  for (const key of Object.keys(to)) {
    const value = to[key];
    const was = Object.hasOwn(from, key) ? from[key] : undefined;
    if (isObject(value) && isObject(was)) {
      const inner = patchBetween(was, value);
      if (inner === undefined) return undefined;
      if (Object.keys(inner).length) set(key, inner);
    } else if (!sameJson(was, value)) {
      if (holdsNull(value)) return undefined;
      set(key, value);
    }
  }
  return patch;
}

function holdsNull(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return false; // an array is carried whole: its nulls stay
  return isObject(value) && Object.values(value).some(holdsNull);
}

/** Whether two JSON values are equal (objects member by member, whatever the order of their keys). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}
