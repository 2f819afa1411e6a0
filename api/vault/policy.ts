// The policy engine for role xtokens: IAM-like statements (CONTRACT §4.9). Default deny; an explicit Deny wins;
// an Allow may grant only some profile fields, and the answer is then masked.
import { z } from 'zod';
import { valueAtPath, valuesAtPath } from './dotted-path.js';
import { actionProblem, checkVariables, conditionProblem, fieldPathProblem, fieldPathWarning, matches } from './policy-terms.js';
import { INDEX_FIELDS } from './identities.js';

export { maskProfile } from './policy-mask.js';

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

const OneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

// Strict: a key the engine does not read (`NotAction`, `Resources`, `condition`) would be dropped, and the statement
// would then grant more, or deny less, than it says.
const Statement = z.strictObject({
  Effect: z.enum(['Allow', 'Deny']),
  Principal: z.strictObject({ Role: OneOrMany }).optional(),
  Action: OneOrMany,
  Resource: OneOrMany.optional(),
  Condition: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});
export type PolicyStatement = z.infer<typeof Statement>;

/** A document is one statement, a list of them, or `{Statement: [...]}` as in AWS (and nothing else beside it). */
const Statements = z.array(Statement).min(1);
const Wrapped = z.strictObject({ Statement: Statements });

const OPERATORS = ['StringEquals', 'ForAnyValue:ListIntersect', 'Bool'] as const;

/** The 400's words for a schema issue at `path`; `top`: the issue is about the `{Statement}` wrapper itself. */
function issueReason(issue: z.core.$ZodIssue, path: PropertyKey[], top: boolean): string {
  if (issue.code !== 'unrecognized_keys') return `${path.join('.') || 'policy'}: ${issue.message}`;
  const takes = path.at(-1) === 'Principal' ? 'Principal takes Role' : top ? 'the document takes Statement' : 'a statement takes Effect, Principal, Action, Resource, Condition';
  return `${[...path.map(String), issue.keys[0]].join('.')}: unknown key (${takes})`;
}

/** Names a policy's words are checked against when it is written: the vault's operations. */
export interface PolicyVocabulary {
  actions: readonly string[];
}

/**
 * The statements of a policy document, or the reason it is not one (for a 400). With `vocabulary` (when a policy is
 * written) every Action must name operations; a stored document is read without it.
 */
export function parsePolicy(doc: unknown, vocabulary?: PolicyVocabulary): { statements: PolicyStatement[] } | { reason: string } {
  // The shape decides the schema, so an error names the field that is wrong, not just "invalid input".
  const wrapped = typeof doc === 'object' && doc !== null && !Array.isArray(doc) && 'Statement' in doc;
  const parsed = wrapped ? Wrapped.safeParse(doc) : Statements.safeParse(Array.isArray(doc) ? doc : [doc]);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { reason: issueReason(issue, Array.isArray(doc) || wrapped ? issue.path : issue.path.slice(1), wrapped && issue.path.length === 0) };
  }
  const statements = 'Statement' in parsed.data ? parsed.data.Statement : parsed.data;
  for (const [i, s] of statements.entries()) {
    const problem = statementProblem(s, vocabulary);
    if (problem) return { reason: `${i}.${problem}` };
  }
  return { statements };
}

/** Why one statement cannot be enforced as written, as `<part>: …`, or null. */
function statementProblem(s: PolicyStatement, vocabulary: PolicyVocabulary | undefined): string | null {
  for (const r of list(s.Resource)) {
    const problem = resourceProblem(r);
    if (problem) return `Resource: ${r} ${problem}`;
  }
  for (const op of Object.keys(s.Condition ?? {})) {
    if (!(OPERATORS as readonly string[]).includes(op)) return `Condition: unknown operator ${op} (use ${OPERATORS.join(', ')})`;
  }
  const unknown = checkVariables(s);
  if (unknown) return unknown;
  const condition = conditionProblem(s.Condition ?? {});
  if (condition) return `Condition.${condition}`;
  for (const a of vocabulary ? list(s.Action) : []) {
    const problem = actionProblem(a, vocabulary!.actions);
    if (problem) return `Action: ${problem}`;
  }
  return null;
}

/**
 * What a valid policy probably did not mean, for the answer's `warnings`: profile field paths (in a Resource or a
 * `${user:FIELD}` condition) that nearly name a field the vault indexes. A document that does not parse has none.
 */
export function policyWarnings(doc: unknown): string[] {
  const parsed = parsePolicy(doc);
  if (!('statements' in parsed)) return [];
  const out: string[] = [];
  for (const [i, s] of parsed.statements.entries()) {
    for (const r of list(s.Resource)) {
      const path = /^(?:\$\{[^}]+\}|users)\.profile\.(.+)$/.exec(r)?.[1];
      const warning = path && path !== '*' ? fieldPathWarning(`${i}.Resource: ${r}`, path, INDEX_FIELDS) : null;
      if (warning) out.push(warning);
    }
    const terms = Object.values(s.Condition ?? {}).flatMap((tests) => Object.entries(tests).flatMap(([k, v]) => [k, ...[v].flat()]));
    for (const term of terms.filter((t): t is string => typeof t === 'string')) {
      const field = /^\$\{user:([^}]+)\}$/.exec(term)?.[1];
      const warning = field ? fieldPathWarning(`${i}.Condition: ${term}`, field, INDEX_FIELDS) : null;
      if (warning) out.push(warning);
    }
  }
  return out;
}

/** Why the engine cannot enforce a resource, or null when it can: anything else would grant or deny nothing. */
function resourceProblem(resource: string): string | null {
  const g = GROUP_MEMBERS.exec(resource);
  const r = g ? `users.${g[2]}` : resource;
  if (r === '*' || r === 'users.profile' || r === 'users.profile.*' || KIND_RESOURCE.test(r)) return null;
  if (r.startsWith('users.profile.')) return fieldPathProblem(r.slice('users.profile.'.length));
  return 'names nothing the engine enforces (use *, users.profile[.<field>…], users.<kind> with kind one of appdata, agreement, consent, group, session, file, request, audit, or ${target_group_members[:role/NAME]}.<the same>)';
}

export interface RequestFacts {
  /** The operation name. */
  action: string;
  /** The kinds of personal data the operation carries (its definition says), e.g. `profile`, `appdata`. */
  kinds: readonly string[];
  /** The caller's role name. */
  role: string;
  requestMetadata: Record<string, unknown>;
  /**
   * For a call on another person's record by a group member: the groups in which the caller holds `role`, and
   * the target's memberships. Without them, group variables and resources match nothing.
   */
  groups?: { caller: number[]; target: { groupId: number; role: string | null }[] };
  /**
   * The person the call is about, once found: their profile (for `${user:FIELD}`) and the status of each of
   * their agreements (for `${agreement:BRIEF}`). Without it those variables match nothing.
   */
  subject?: { profile?: Record<string, unknown>; agreements?: Record<string, string> };
}

/** Which profile fields an allowed call may see: all, or only these. */
export type FieldGrant = '*' | ReadonlySet<string>;

export type Decision = { allow: false } | { allow: true; fields: FieldGrant };

const VARIABLE = /^\$\{([^}]+)\}$/;

/** A variable's value, or undefined when this request does not define it (then the condition fails). */
function resolve(term: unknown, facts: RequestFacts): unknown {
  if (typeof term !== 'string') return term;
  const m = VARIABLE.exec(term);
  if (!m) return term;
  const name = m[1]!;
  if (name.startsWith('request_metadata:')) return facts.requestMetadata[name.slice('request_metadata:'.length)];
  if (facts.groups) {
    if (name === 'user_group_id' || name === 'principal_group_id') return facts.groups.caller;
    if (name === 'target_group_id') return facts.groups.target.map((m) => m.groupId);
  }
  if (name.startsWith('user:') && facts.subject?.profile) {
    // Through arrays, a field has a value per element: the test holds when it holds for any of them.
    const path = name.slice('user:'.length);
    const values = valuesAtPath(facts.subject.profile, path);
    const one = valueAtPath(facts.subject.profile, path);
    return one !== undefined && !Array.isArray(one) ? one : values.length > 0 ? values : undefined;
  }
  if (name.startsWith('agreement:') && facts.subject?.agreements) return facts.subject.agreements[name.slice('agreement:'.length)] ?? 'none';
  // Anything else is not defined by this request: it matches nothing.
  return undefined;
}

/** What a policy's conditions need to know about the person a call is about, before they can be judged. */
export function subjectVariables(statements: readonly PolicyStatement[]): { profile: boolean; agreements: boolean } {
  const text = JSON.stringify(statements.map((s) => s.Condition ?? {}));
  return { profile: text.includes('${user:'), agreements: text.includes('${agreement:') };
}

/** A kind of a person's data other than the profile, as a resource names it (`consent` is `agreement`). */
const KIND_RESOURCE = /^users\.(appdata|agreement|consent|group|session|file|request|audit)(\.\*)?$/;

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
const asText = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

/** One condition test as it was judged: what the variable resolved to, what was wanted, and whether it matched. */
export interface ConditionTrace {
  operator: string;
  key: string;
  saw: unknown;
  wanted: unknown[];
  matched: boolean;
}

function testHolds(op: string, have: unknown, want: unknown[]): boolean {
  if (have === undefined || want.some((w) => w === undefined)) return false;
  switch (op) {
    case 'StringEquals': {
      // A list on either side (group ids) matches when any of its values equals any wanted one.
      const hs = asList(have).map(asText).filter((h) => h !== undefined);
      const ws = new Set(want.flatMap(asList).map(asText));
      return hs.some((h) => ws.has(h));
    }
    case 'ForAnyValue:ListIntersect': {
      const hs = new Set(asList(have).map(asText));
      return want.flatMap(asList).some((w) => hs.has(asText(w)));
    }
    case 'Bool': {
      const truth = (v: unknown) => v === true || v === 'true';
      return want.some((w) => truth(w) === truth(have));
    }
    default:
      return false;
  }
}

/** True when every test holds. With `record`, every test is judged and recorded (for PolicyExplain). */
function conditionHolds(condition: PolicyStatement['Condition'], facts: RequestFacts, record?: ConditionTrace[]): boolean {
  let holds = true;
  for (const [op, tests] of Object.entries(condition ?? {})) {
    for (const [left, right] of Object.entries(tests)) {
      const have = resolve(left, facts);
      const want = asList(right).map((r) => resolve(r, facts));
      const matched = testHolds(op, have, want);
      if (!record && !matched) return false;
      record?.push({ operator: op, key: left, saw: have, wanted: want, matched });
      holds &&= matched;
    }
  }
  return holds;
}

const GROUP_MEMBERS = /^\$\{target_group_members(?::role\/([^}]+))?\}\.(.+)$/;

/** What one resource pattern names: everything, the whole profile, one profile field (a dotted path), a kind. */
// `profile` is a dotted path, or `*` for the whole profile.
type Target = { all: true } | { profile: string } | { kind: string } | null;

/**
 * What a resource pattern names. A `${target_group_members[:role/X]}.profile…` pattern counts only when the
 * target is in one of the caller's groups (with role X when named).
 */
function targetOf(resource: string, facts: RequestFacts): Target {
  const g = GROUP_MEMBERS.exec(resource);
  if (g) {
    const groups = facts.groups;
    const member = groups?.target.some((m) => groups.caller.includes(m.groupId) && (g[1] === undefined || m.role === g[1]));
    return member ? targetOf(`users.${g[2]}`, facts) : null;
  }
  if (resource === '*') return { all: true };
  if (resource === 'users.profile' || resource === 'users.profile.*') return { profile: '*' };
  if (resource.startsWith('users.profile.')) return { profile: resource.slice('users.profile.'.length) };
  const k = KIND_RESOURCE.exec(resource);
  if (k) return { kind: k[1] === 'consent' ? 'agreement' : k[1]! };
  return null;
}

/**
 * The verdict on one call. Default deny; a Deny of everything, of the whole profile or of a kind the operation
 * carries refuses it; a Deny of profile fields hides them. An Allow must cover every kind the operation carries
 * (`*` covers all; `users.profile…` the profile, wholly or some fields at any depth; `users.<kind>` that kind);
 * an operation that carries no personal data is allowed by `*` or a profile resource, as before kinds existed.
 */
/** How a decision came about, statement by statement (indexes into the statements judged). */
export interface Trace {
  statements: { index: number; applied: boolean; conditions: ConditionTrace[] }[];
  /** The Deny that refused the call, if one did. */
  refusedBy?: number;
  /** The Allows that granted something. */
  allowedBy: number[];
  /** Profile fields denied, each with the statement that denied it. */
  deniedFields: { field: string; index: number }[];
}

export function evaluate(statements: readonly PolicyStatement[], facts: RequestFacts, trace?: Trace): Decision {
  const applicable = statements.filter((s, index) => {
    const record: ConditionTrace[] | undefined = trace ? [] : undefined;
    const applied =
      (s.Principal === undefined || list(s.Principal.Role).some((r) => matches(r, facts.role))) &&
      list(s.Action).some((a) => matches(a, facts.action)) &&
      conditionHolds(s.Condition, facts, record);
    trace?.statements.push({ index, applied, conditions: record ?? [] });
    return applied;
  });
  const indexOf = (s: PolicyStatement) => statements.indexOf(s);
  let everything = false;
  let wholeProfile = false;
  const granted = new Set<string>();
  const kinds = new Set<string>();
  const denied = new Set<string>();
  for (const s of applicable) {
    const targets = (s.Resource === undefined ? ['*'] : list(s.Resource)).map((r) => targetOf(r, facts));
    if (s.Effect === 'Deny') {
      for (const t of targets) {
        if (!t) continue;
        const refuses = 'all' in t || ('profile' in t && t.profile === '*') || ('kind' in t && facts.kinds.includes(t.kind));
        if (refuses) {
          if (trace) trace.refusedBy = indexOf(s);
          return { allow: false };
        }
        if ('profile' in t) {
          denied.add(t.profile);
          trace?.deniedFields.push({ field: t.profile, index: indexOf(s) });
        }
      }
      continue;
    }
    if (trace && targets.some((t) => t !== null)) trace.allowedBy.push(indexOf(s));
    for (const t of targets) {
      if (!t) continue;
      if ('all' in t) everything = true;
      else if ('profile' in t) {
        if (t.profile === '*') wholeProfile = true;
        else granted.add(t.profile);
      } else kinds.add(t.kind);
    }
  }
  const profileGranted = everything || wholeProfile || granted.size > 0;
  const covered =
    facts.kinds.length === 0
      ? profileGranted
      : facts.kinds.every((k) => everything || (k === 'profile' ? profileGranted : kinds.has(k)));
  if (!covered) return { allow: false };
  if ((everything || wholeProfile) && denied.size === 0) return { allow: true, fields: '*' };
  if (everything || wholeProfile) return { allow: true, fields: new Set(['*', ...[...denied].map((d) => `!${d}`)]) };
  const fields = [...granted].filter((g) => ![...denied].some((d) => g === d || g.startsWith(`${d}.`)));
  // Some fields granted and all of them denied: nothing of the profile is left to show.
  if (fields.length === 0 && facts.kinds.includes('profile')) return { allow: false };
  // A denied field inside a granted one (`address` granted, `address.city` denied) stays hidden.
  const inside = [...denied].filter((d) => fields.some((g) => d.startsWith(`${g}.`)));
  return { allow: true, fields: new Set([...fields, ...inside.map((d) => `!${d}`)]) };
}
