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

/**
 * What two grants both show, as one grant (null: nothing): a field is shown when each shows it. Denies add up; an
 * allow-list keeps, of each pair of allowed paths, the one inside the other. What an answer shows for a role
 * through another operation than UserGet is its own grant and UserGet's together (ops/admission.ts).
 */
export function intersectGrants(a: FieldGrant, b: FieldGrant): FieldGrant | null {
  if (a === '*') return b;
  if (b === '*') return a;
  const [ma, mb] = [maskOf(a), maskOf(b)];
  const denied = [...new Set([...ma.denied, ...mb.denied])];
  const all = ma.all && mb.all;
  const allowed = all
    ? []
    : ma.all
      ? [...mb.allowed]
      : mb.all
        ? [...ma.allowed]
        : ma.allowed.flatMap((x) => mb.allowed.flatMap((y) => (within(x, y) ? [x] : within(y, x) ? [y] : [])));
  // An allowed path inside a denied one shows nothing; with nothing left, the grant shows nothing at all.
  const left = [...new Set(allowed)].filter((p) => !denied.some((d) => within(p, d)));
  if (!all && left.length === 0) return null;
  return new Set([...(all ? ['*'] : left), ...denied.map((d) => `!${d}`)]);
}

/**
 * Whether an `add` of the field at `path` (whose parent is the field at `parent`) can tell nothing of what the grant
 * hides, when the grant does not show it whole: it must be a field hidden whole (nothing inside it shown, nothing
 * hidden inside it that is not hidden with it) in a parent the grant shows, so the add succeeds or fails alike
 * whatever the hidden value is.
 */
export function addsBlind(fields: FieldGrant, parent: string, path: string): boolean {
  if (fields === '*') return true;
  const m = maskOf(fields);
  const strictlyIn = (p: string, root: string) => p !== root && within(p, root);
  if (m.denied.some((d) => within(parent, d) || strictlyIn(d, path))) return false;
  if (m.all) return true;
  // A parent on the way to an allowed field shows only that field: what else it is (or holds) stays unsaid.
  const parentShown = parent === '' || m.allowed.some((a) => within(parent, a));
  return parentShown && !m.allowed.some((a) => strictlyIn(a, path));
}
