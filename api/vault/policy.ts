// The policy engine for role xtokens: IAM-like statements (CONTRACT §4.9). Default deny; an explicit Deny wins;
// an Allow may grant only some profile fields, and the answer is then masked.
import { z } from 'zod';

const OneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

const Statement = z.object({
  Effect: z.enum(['Allow', 'Deny']),
  Principal: z.object({ Role: OneOrMany }).optional(),
  Action: OneOrMany,
  Resource: OneOrMany.optional(),
  Condition: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});
export type PolicyStatement = z.infer<typeof Statement>;

/** A document is one statement, a list of them, or `{Statement: [...]}` as in AWS. */
const Statements = z.array(Statement).min(1);

const OPERATORS = ['StringEquals', 'ForAnyValue:ListIntersect', 'Bool'] as const;

/** The statements of a policy document, or the reason it is not one (for a 400). */
export function parsePolicy(doc: unknown): { statements: PolicyStatement[] } | { reason: string } {
  // The shape decides the schema, so an error names the field that is wrong, not just "invalid input".
  const list = Array.isArray(doc) ? doc : typeof doc === 'object' && doc !== null && 'Statement' in doc ? (doc as { Statement: unknown }).Statement : [doc];
  const parsed = Statements.safeParse(list);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = Array.isArray(doc) || (typeof doc === 'object' && doc !== null && 'Statement' in doc) ? issue.path : issue.path.slice(1);
    return { reason: `${path.join('.') || 'policy'}: ${issue.message}` };
  }
  const statements = parsed.data;
  for (const s of statements) {
    for (const op of Object.keys(s.Condition ?? {})) {
      if (!(OPERATORS as readonly string[]).includes(op)) return { reason: `Condition: unknown operator ${op} (use ${OPERATORS.join(', ')})` };
    }
  }
  return { statements };
}

export interface RequestFacts {
  /** The operation name. */
  action: string;
  /** The caller's role name. */
  role: string;
  requestMetadata: Record<string, unknown>;
}

/** Which profile fields an allowed call may see: all, or only these. */
export type FieldGrant = '*' | ReadonlySet<string>;

export type Decision = { allow: false } | { allow: true; fields: FieldGrant };

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** `*` matches anything, `User*` any name starting with `User`; otherwise names match exactly. */
function matches(pattern: string, name: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

const VARIABLE = /^\$\{([^}]+)\}$/;

/** A variable's value, or undefined when this request does not define it (then the condition fails). */
function resolve(term: unknown, facts: RequestFacts): unknown {
  if (typeof term !== 'string') return term;
  const m = VARIABLE.exec(term);
  if (!m) return term;
  const name = m[1]!;
  if (name.startsWith('request_metadata:')) return facts.requestMetadata[name.slice('request_metadata:'.length)];
  // Group and user variables need the group model; until a request defines them they match nothing.
  return undefined;
}

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
const asText = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

function conditionHolds(condition: PolicyStatement['Condition'], facts: RequestFacts): boolean {
  for (const [op, tests] of Object.entries(condition ?? {})) {
    for (const [left, right] of Object.entries(tests)) {
      const have = resolve(left, facts);
      const want = asList(right).map((r) => resolve(r, facts));
      if (have === undefined || want.some((w) => w === undefined)) return false;
      switch (op) {
        case 'StringEquals': {
          const h = asText(have);
          if (h === undefined || !want.some((w) => asText(w) === h)) return false;
          break;
        }
        case 'ForAnyValue:ListIntersect': {
          const hs = new Set(asList(have).map(asText));
          if (!want.flatMap(asList).some((w) => hs.has(asText(w)))) return false;
          break;
        }
        case 'Bool': {
          const truth = (v: unknown) => v === true || v === 'true';
          if (!want.some((w) => truth(w) === truth(have))) return false;
          break;
        }
        default:
          return false;
      }
    }
  }
  return true;
}

/** The profile fields a resource pattern names: all, some, or none (resources about other things). */
function fieldsOf(resource: string): '*' | string | null {
  if (resource === '*' || resource === 'users.profile' || resource === 'users.profile.*') return '*';
  if (resource.startsWith('users.profile.')) return resource.slice('users.profile.'.length);
  return null;
}

export function evaluate(statements: readonly PolicyStatement[], facts: RequestFacts): Decision {
  const applicable = statements.filter(
    (s) =>
      (s.Principal === undefined || list(s.Principal.Role).some((r) => matches(r, facts.role))) &&
      list(s.Action).some((a) => matches(a, facts.action)) &&
      conditionHolds(s.Condition, facts),
  );
  let all = false;
  const granted = new Set<string>();
  const denied = new Set<string>();
  for (const s of applicable) {
    const resources = s.Resource === undefined ? ['*'] : list(s.Resource);
    const fields = resources.map(fieldsOf);
    if (s.Effect === 'Deny') {
      // A Deny of the whole call (no resource, or `*`) wins over everything; a Deny of fields hides them.
      if (fields.includes('*')) return { allow: false };
      for (const f of fields) if (f) denied.add(f);
      continue;
    }
    for (const f of fields) {
      if (f === '*') all = true;
      else if (f) granted.add(f);
    }
  }
  if (!all && granted.size === 0) return { allow: false };
  if (all && denied.size === 0) return { allow: true, fields: '*' };
  if (all) return { allow: true, fields: new Set(['*', ...[...denied].map((d) => `!${d}`)]) };
  return { allow: true, fields: new Set([...granted].filter((g) => !denied.has(g))) };
}

/** True when the grant lets this field through unmasked. */
function visible(fields: FieldGrant, field: string): boolean {
  if (fields === '*') return true;
  if (fields.has('*')) return !fields.has(`!${field}`);
  return fields.has(field);
}

/** A profile as a partially allowed caller sees it: unauthorised strings become `***`, other values are left out. */
export function maskProfile(profile: Record<string, unknown>, fields: FieldGrant): Record<string, unknown> {
  if (fields === '*') return profile;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(profile)) {
    if (visible(fields, k)) out[k] = v;
    else if (typeof v === 'string') out[k] = '***';
  }
  return out;
}
