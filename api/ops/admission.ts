// The admission gate: who may call an operation and what a role's policies let it see, decided before the operation
// runs. For roles whose policies ask about the person, and for login xtokens reaching others, the rest is judged as
// the operation reaches people, by the call's gate (gate.ts) from what this decided. Every fact about an operation
// comes from its definition (access, login, kinds, masks, judges); nothing here is a list of operation names.
import type { OpDefinition } from './define.js';
import type { Services } from '../vault/services.js';
import type { Principal } from '../vault/credentials.js';
import type { UserRow } from '../store/users.js';
import type { Stores } from '../store/stores.js';
import { MAIN_TENANT_ID } from '../store/database.js';
import { forbidden, Messages } from '../errors.js';
import { evaluate, maskProfile, subjectVariables, type FieldGrant, type PolicyStatement, type RequestFacts } from '../vault/policy.js';
import { intersectGrants } from '../vault/policy-mask.js';
import { effectiveStatus } from '../vault/consent.js';
import { nowSeconds } from '../vault/durations.js';

type Facts = Pick<OpDefinition, 'name' | 'kinds' | 'masks' | 'showsProfile'>;

/** What a role's conditions may ask about the person a call is about: their profile, their agreements' status. */
export type SubjectFacts = NonNullable<RequestFacts['subject']>;

/** Who asks, in which tenant, with which request_metadata: what every verdict of one call shares. */
export interface Asker {
  services: Services;
  principal: Principal;
  tenantId: number;
  metadata: Record<string, unknown>;
}

/** A role's verdict on an operation: the fields it may see (null: refused), again once the person is known. */
export interface RoleVerdict {
  grant: FieldGrant | null;
  /** Whether the role's conditions ask about the person (`${user:FIELD}`, `${agreement:BRIEF}`). */
  judgesSubject: boolean;
  judgeOrNull: (subject: SubjectFacts) => FieldGrant | null;
  needs: { profile: boolean; agreements: boolean };
}

/** What admission decided: plain facts, from which the call's gate judges the rest (gate.ts). */
export interface Admission {
  asker: Asker;
  op: Facts & Pick<OpDefinition, 'judges'>;
  /** The profile fields the answer may show before anyone is judged. */
  fields: FieldGrant;
  /**
   * Refused unless the person it is about is found and judged allowed: for roles whose policies ask about the
   * person, every call that carries personal data until a person has been judged.
   */
  deniedUnlessSubject: boolean;
  /** For roles whose policies ask about the person: the verdict that judges each person the call reaches. */
  role?: RoleVerdict;
}

export async function admit(services: Services, op: OpDefinition, principal: Principal, tenantId: number, metadata: Record<string, unknown>): Promise<Admission> {
  const admin = principal.kind === 'root' || principal.kind === 'tenant-admin';
  if (op.access === 'mainTenant' && (!admin || tenantId !== MAIN_TENANT_ID || principal.tenantId !== MAIN_TENANT_ID)) throw forbidden();
  if (op.access === 'admin' && !admin) throw forbidden();
  // Login xtokens act on their own record through the operations that say so; the gate checks whose.
  if (principal.kind === 'login' && op.login !== 'own') throw forbidden();
  const admission: Admission = { asker: { services, principal, tenantId, metadata }, op, fields: '*', deniedUnlessSubject: false };
  if (principal.kind !== 'role') return admission;
  const verdict = await judgeRole(services, principal, op, metadata);
  if (!verdict.judgesSubject) {
    if (verdict.grant === null) throw forbidden(Messages.apiDenied);
    return { ...admission, fields: verdict.grant };
  }
  // A role that asks about the person may run only operations that judge every person they reach.
  if (cannotJudge(op, verdict.needs)) throw forbidden(Messages.apiDenied);
  // A call that carries personal data must have judged the person it reached; one that carries none (or finds
  // nobody) stands on the verdict without them.
  return { ...admission, role: verdict, fields: verdict.grant ?? '*', deniedUnlessSubject: verdict.grant === null || op.kinds.length > 0 };
}

/**
 * Admission as far as it can be judged without the body: the operation's access and login rules, and a role's
 * verdict, unless the role's policies read request_metadata (which only the body carries): those are judged with
 * the body as usual. Throws what `admit` would; a call it lets through is judged again, whole, with its body.
 */
export async function admitFromHeader(services: Services, op: OpDefinition, principal: Principal, tenantId: number): Promise<void> {
  if (principal.kind === 'role' && principal.roleId !== null) {
    const role = await services.roles.statementsOf(principal.roleId);
    if (role && JSON.stringify(role.statements).includes('request_metadata')) return;
  }
  await admit(services, op, principal, tenantId, {});
}

/** A role whose policies ask about the person cannot be given an operation that carries personal data unjudged. */
export function cannotJudge(op: Pick<OpDefinition, 'kinds' | 'judges'>, needs: { profile: boolean; agreements: boolean }): boolean {
  return (needs.profile || needs.agreements) && op.kinds.length > 0 && op.judges === undefined;
}

/**
 * The role's verdict on an operation: the profile fields it may see (null: refused). When the role's conditions ask
 * about the person, `judgeOrNull` judges again once that person is found; `grant` is then the verdict without them.
 */
export async function judgeRole(services: Services, principal: Principal, op: Facts, metadata: Record<string, unknown>): Promise<RoleVerdict> {
  const role = principal.roleId === null ? null : await services.roles.statementsOf(principal.roleId);
  if (!role) throw forbidden(Messages.apiDenied);
  const judgeOrNull = (subject?: SubjectFacts): FieldGrant | null =>
    grantShown(op, role.statements, { action: op.name, kinds: op.kinds, role: role.rolename, requestMetadata: metadata, ...(subject ? { subject } : {}) });
  const needs = subjectVariables(role.statements);
  return { grant: judgeOrNull(), judgesSubject: needs.profile || needs.agreements, judgeOrNull, needs };
}

/** How UserGet is judged: what every other answer that shows profile values shows at most. */
const USER_GET: Facts = { name: 'UserGet', kinds: ['profile'], masks: true };

/**
 * The role's grant for an operation on these facts (null: refused). An answer that shows profile values
 * (`showsProfile`) shows at most what the role's UserGet shows of the person: both grants together, masked where
 * the answer masks, else refused unless both show the whole profile. A field hidden from UserGet stays hidden.
 */
export function grantShown(op: Facts, statements: PolicyStatement[], facts: RequestFacts): FieldGrant | null {
  const own = grantFor(op, evaluate(statements, facts));
  if (own === null || !op.showsProfile) return own;
  const asUserGet = grantFor(USER_GET, evaluate(statements, { ...facts, action: USER_GET.name, kinds: USER_GET.kinds }));
  return alsoShownBy(op, own, asUserGet);
}

/** An operation's own grant as UserGet's grant lets it show: null when UserGet shows nothing or it cannot mask. */
export function alsoShownBy(op: Facts, own: FieldGrant, asUserGet: FieldGrant | null): FieldGrant | null {
  const both = asUserGet === null ? null : intersectGrants(own, asUserGet);
  return both === null || (both !== '*' && !op.masks) ? null : both;
}

/**
 * A decision as a grant for this operation. A grant of some profile fields can be honoured only where the answer
 * carries profiles as the gate masks them; where the operation carries no profile, the profile's fields are not
 * its business; anywhere else a partial grant is no grant.
 */
export function grantFor(op: Facts, decision: ReturnType<typeof evaluate>): FieldGrant | null {
  if (!decision.allow) return null;
  if (decision.fields === '*') return '*';
  if (op.kinds.includes('profile')) return op.masks ? decision.fields : null;
  // The kinds it carries are granted whole (evaluate saw to that).
  if (op.kinds.length > 0) return '*';
  // A call that carries no one's data: allowed by everything (a denied profile field is not its business), not by
  // a grant of some profile fields.
  return decision.fields.has('*') ? '*' : null;
}


/**
 * A login xtoken on another person's record: allowed when a policy of a role the caller holds in a group allows
 * it (CONTRACT §4.9: parents and managers reading their group's members). The caller's groups and the target's
 * memberships are the facts `${user_group_id}`, `${target_group_id}` and `${target_group_members…}` refer to.
 * Inside a write the memberships are read on the transaction's connection (the embedded database has one).
 */
export async function judgeByGroups(asker: Asker, op: Facts, target: string, stores: Stores): Promise<FieldGrant> {
  const { services, principal, metadata } = asker;
  const store = stores.groups;
  const [mine, theirs] = await Promise.all([store.membershipsOf(principal.userToken!), store.membershipsOf(target)]);
  const roleNames = new Map<number, string>();
  for (const id of new Set([...mine, ...theirs].map((m) => m.roleId).filter((id): id is number => id !== null))) {
    const role = await services.roles.statementsOf(id);
    if (role) roleNames.set(id, role.rolename);
  }
  const targetGroups = theirs.map((m) => ({ groupId: m.groupId, role: m.roleId === null ? null : (roleNames.get(m.roleId) ?? null) }));
  let all = false;
  const granted = new Set<string>();
  for (const roleId of new Set(mine.map((m) => m.roleId).filter((id): id is number => id !== null))) {
    const role = await services.roles.statementsOf(roleId);
    if (!role) continue;
    const caller = mine.filter((m) => m.roleId === roleId).map((m) => m.groupId);
    const fields = grantShown(op, role.statements, { action: op.name, kinds: op.kinds, role: role.rolename, requestMetadata: metadata, groups: { caller, target: targetGroups } });
    if (fields === null) continue;
    if (fields === '*') all = true;
    else for (const f of fields) granted.add(f);
  }
  if (!all && granted.size === 0) throw forbidden();
  return all ? '*' : granted;
}

/** What a role's conditions may ask about the person a call is about: their profile, their agreements' status. */
export async function subjectFacts(
  services: Services,
  tenantId: number,
  stores: Stores,
  row: UserRow,
  needs: { profile: boolean; agreements: boolean },
): Promise<SubjectFacts> {
  const now = nowSeconds();
  const [profile, agreements] = await Promise.all([
    needs.profile ? services.users.open(tenantId, row) : undefined,
    needs.agreements ? stores.consent.agreementsOf(row.token) : undefined,
  ]);
  return {
    ...(profile ? { profile } : {}),
    ...(agreements ? { agreements: Object.fromEntries(agreements.map((a) => [a.brief, effectiveStatus(a, now)])) } : {}),
  };
}

/** Profiles in an answer (`profile`, and `profile` of each of `rows`) as a partial grant lets the caller see them. */
export function masked(result: Record<string, unknown>, fields: FieldGrant): Record<string, unknown> {
  if (fields === '*') return result;
  const maskOne = (o: unknown) =>
    o && typeof o === 'object' && 'profile' in o && typeof (o as { profile: unknown }).profile === 'object' && (o as { profile: unknown }).profile !== null
      ? { ...o, profile: maskProfile((o as { profile: Record<string, unknown> }).profile, fields) }
      : o;
  const out = maskOne(result) as Record<string, unknown>;
  return Array.isArray(out.rows) ? { ...out, rows: out.rows.map(maskOne) } : out;
}
