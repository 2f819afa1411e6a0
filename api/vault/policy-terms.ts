// The words a policy may use besides names: profile field paths and `${…}` variables. A path or a variable the
// engine does not know would match nothing, so a Deny written with a typo would never apply: both are refused.
import { didYouMean } from './nearest-names.js';

/**
 * A profile field path is dotted keys (`address.city`); it applies to every element of every array on its way.
 * No wildcards or indexes inside it: `users.profile.*` is the only wildcard a profile resource takes.
 */
const SEGMENT = /^[^.\s*?[\]{}]+$/;

/** Why `path` is no profile field path, or null when it is one. */
export function fieldPathProblem(path: string): string | null {
  const segments = path.split('.');
  if (segments.some((s) => /^[0-9]+$/.test(s))) {
    // The masking walks every element of an array: an index would name nothing, and a Deny of it would hide nothing.
    return 'is no profile field path: a numeric segment (an array index) names nothing, since a path applies to every element of the arrays on its way';
  }
  if (segments.every((s) => SEGMENT.test(s))) return null;
  return 'is no profile field path: dotted field names without *, ?, [ ], { } or spaces (a path applies to every element of the arrays on its way)';
}

/**
 * A warning for a field path that is valid but probably not meant, or null. Profiles are free-form, so a path is
 * only compared with the names the vault indexes (login, email, phone, custom): one that nearly spells one of
 * them (`emial`, `Email`) would mask, grant or deny nothing in the profiles that hold the indexed field.
 */
export function fieldPathWarning(where: string, path: string, indexed: readonly string[]): string | null {
  const first = path.split('.')[0]!;
  if (indexed.includes(first)) return null;
  const hint = didYouMean(first, indexed);
  return hint ? `${where}: profile field ${first} is no field the vault indexes${hint}: a path no profile holds matches nothing` : null;
}

/** The variables conditions may use; `NAME` and `BRIEF` are any non-empty name, `FIELD` a field path. */
const KNOWN = ['${request_metadata:NAME}', '${user_group_id}', '${principal_group_id}', '${target_group_id}', '${user:FIELD}', '${agreement:BRIEF}'];

function knownVariable(term: string): boolean {
  const m = /^\$\{([^}]+)\}$/.exec(term);
  if (!m) return false;
  const name = m[1]!;
  if (name === 'user_group_id' || name === 'principal_group_id' || name === 'target_group_id') return true;
  const colon = name.indexOf(':');
  const [kind, rest] = colon < 0 ? [name, ''] : [name.slice(0, colon), name.slice(colon + 1)];
  if (kind === 'user') return rest !== '' && fieldPathProblem(rest) === null;
  return (kind === 'request_metadata' || kind === 'agreement') && rest.trim() !== '' && !rest.includes('${');
}

/** The strings of a condition value: its own text, or those of a list. */
const texts = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(texts) : []);

/**
 * Where a statement uses an unknown variable, as `Condition.<op>.<key>: …` or `Action: …`, or null when every
 * `${` it holds starts a known variable used whole. (Resources are checked by their own grammar.)
 */
export function checkVariables(s: { Action: string | string[]; Principal?: { Role: string | string[] } | undefined; Condition?: Record<string, Record<string, unknown>> | undefined }): string | null {
  const unknown = (term: string) => term.includes('${') && !knownVariable(term);
  const named = (where: string, term: string) => `${where}: unknown variable ${term} (variables are used whole: ${KNOWN.join(', ')})`;
  for (const term of texts(s.Action)) if (term.includes('${')) return named('Action', term);
  for (const term of texts(s.Principal?.Role)) if (term.includes('${')) return named('Principal.Role', term);
  for (const [op, tests] of Object.entries(s.Condition ?? {})) {
    for (const [key, value] of Object.entries(tests)) {
      for (const term of [key, ...texts(value)]) if (unknown(term)) return named(`Condition.${op}.${key}`, term);
    }
  }
  return null;
}

/** The one wildcard grammar of names (actions, principal roles): `*` any name, `User*` any name starting with `User`. */
export function matches(pattern: string, name: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

/**
 * Why an Action names no operation, or null: it must be `*`, an operation's exact name, or a prefix of at least one
 * name followed by `*` (case counts). Anything else (`UserGett`, `userget`, `*Get`, `User?et`) would match nothing.
 */
export function actionProblem(action: string, operations: readonly string[]): string | null {
  const prefix = action.endsWith('*') ? action.slice(0, -1) : null;
  const wild = /[*?]/.test(prefix ?? action);
  if (!wild && operations.some((op) => matches(action, op))) return null;
  return `${action} names no operation${didYouMean(action, operations)}: use an operation's exact name, * or a prefix of names followed by * (User*)`;
}

const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * Why a condition cannot be judged as written, as `<op>.<key>: …`, or null. Each test's key is one whole variable
 * (a literal key would be compared as text and never match a value), and its wanted values are a scalar or a
 * non-empty list of scalars (an empty list, an object or null matches nothing).
 */
export function conditionProblem(condition: Record<string, Record<string, unknown>>): string | null {
  for (const [op, tests] of Object.entries(condition)) {
    if (Object.keys(tests).length === 0) return `${op}: no test (write the variable and the wanted values)`;
    for (const [key, wanted] of Object.entries(tests)) {
      if (!/^\$\{[^}]+\}$/.test(key)) return `${op}.${key}: a test's key is one whole variable (${KNOWN.join(', ')})`;
      const values = Array.isArray(wanted) ? wanted : [wanted];
      if (values.length === 0) return `${op}.${key}: an empty list of wanted values matches nothing`;
      if (!values.every(isScalar)) return `${op}.${key}: wanted values are strings, numbers or booleans`;
    }
  }
  return null;
}
