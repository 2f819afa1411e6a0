// Masking a profile for a partial grant, at any depth and through arrays: a field path (`addresses.city`) applies
// to every element of every array on its way. PolicyExplain reads what is masked from here too.
import type { FieldGrant } from './policy.js';

/** A grant as the masking reads it: everything or an allow-list, less the denied paths. */
interface Mask {
  all: boolean;
  allowed: readonly string[];
  denied: readonly string[];
}

function maskOf(fields: Exclude<FieldGrant, '*'>): Mask {
  return {
    all: fields.has('*'),
    allowed: [...fields].filter((f) => f !== '*' && !f.startsWith('!')),
    denied: [...fields].filter((f) => f.startsWith('!')).map((f) => f.slice(1)),
  };
}

/** The paths a grant hides inside what it shows: what PolicyExplain reports as masked. */
export function maskedPaths(fields: FieldGrant | null): string[] {
  return fields === null || fields === '*' ? [] : [...maskOf(fields).denied];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value the caller may not see: a string shows that something is there (`***`), anything else is left out. */
const hidden = (v: unknown): unknown => (typeof v === 'string' ? '***' : undefined);

const below = (paths: readonly string[], path: string) => paths.some((p) => p.startsWith(`${path}.`));

/** The field at `path` as shown; `granted` when an ancestor is granted. */
function field(value: unknown, path: string, granted: boolean, m: Mask): unknown {
  if (m.denied.includes(path)) return hidden(value);
  if (granted || m.allowed.includes(path)) return below(m.denied, path) ? inside(value, path, true, m) : value;
  return below(m.allowed, path) ? inside(value, path, false, m) : hidden(value);
}

/** The fields inside a value at `path`: an array's elements all stand at the array's own path. */
function inside(value: unknown, path: string, granted: boolean, m: Mask): unknown {
  if (Array.isArray(value)) return value.map((v) => inside(v, path, granted, m)).filter((v) => v !== undefined);
  if (isRecord(value)) return fieldsOf(value, `${path}.`, granted, m);
  return granted ? value : hidden(value);
}

function fieldsOf(object: Record<string, unknown>, prefix: string, granted: boolean, m: Mask): Record<string, unknown> {
  const out: [string, unknown][] = [];
  for (const [key, value] of Object.entries(object)) {
    const shown = field(value, prefix + key, granted, m);
    if (shown !== undefined) out.push([key, shown]);
  }
  // fromEntries defines own properties, so a `__proto__` key stays a plain field.
  return Object.fromEntries(out);
}

/**
 * A profile as a partially allowed caller sees it. With an allow-list, a field is shown when it or an ancestor is
 * granted, and an object or array on the way to a granted field shows only what is granted inside it; with a
 * deny-list (`*` and `!path`), a denied field and all below it are hidden. Unauthorised strings become `***`,
 * other values are left out.
 */
export function maskProfile(profile: Record<string, unknown>, fields: FieldGrant): Record<string, unknown> {
  if (fields === '*') return profile;
  const m = maskOf(fields);
  return fieldsOf(profile, '', m.all, m);
}

const within = (path: string, root: string) => root === '' || path === root || path.startsWith(`${root}.`);

/**
 * Whether a grant shows the value at a field path (`''`: the whole profile) whole, nothing in it masked: what an
 * operation that reads profile values for the caller (a patch's test or copy, a share) may read.
 */
export function readsWhole(fields: FieldGrant, path: string): boolean {
  if (fields === '*') return true;
  const m = maskOf(fields);
  if (m.denied.some((d) => within(d, path) || within(path, d))) return false;
  return m.all || m.allowed.some((a) => within(path, a));
}
