// The admission gate: who may call an operation, what a role's policies let it see, and, for roles whose policies
// ask about the person, a judgement once that person is found. Every fact about an operation comes from its
// definition (access, login, kinds, masks, judges); nothing here is a list of operation names.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OpDefinition } from './define.js';
import type { Services } from '../vault/services.js';
import type { Principal } from '../vault/credentials.js';
import type { UserRow } from '../store/users.js';
import { Stores } from '../store/stores.js';
import { MAIN_TENANT_ID } from '../store/database.js';
import { forbidden, Messages } from '../errors.js';
import { evaluate, maskProfile, subjectVariables, type FieldGrant, type RequestFacts } from '../vault/policy.js';
import { effectiveStatus } from '../vault/consent.js';
import { nowSeconds } from '../vault/durations.js';

type Facts = Pick<OpDefinition, 'name' | 'kinds' | 'masks'>;

/** What admission decided, and what the operation's run still has to judge. */
export interface Admission {
  /** The profile fields the answer may show; narrowed once a person is judged. */
  fields: FieldGrant;
  /**
   * True while the call stands refused unless the person it is about is found and judged allowed: for roles whose
   * policies ask about the person, every call that carries personal data until a person has been judged.
   */
  deniedUnlessSubject: boolean;
  /** For roles whose policies ask about the person: judges the call once that person is found (or not: null). */
  authoriseSubject?: (row: UserRow | null, em: EntityManager) => Promise<void>;
  /** For login xtokens: throws unless the caller's group roles let it reach this other person's record. */
  authoriseOther?: (userToken: string, em: EntityManager) => Promise<void>;
  /** For list operations of roles whose policies ask about the person: each listed person's grant, or null. */
  judgeListed?: (people: { row: UserRow; profile: Record<string, unknown> }[], em: EntityManager) => Promise<(FieldGrant | null)[]>;
  /**
   * Judges one more action the operation performs (v1's creations; UserPatch and SharedRecordCreate reading profile
   * values, judged as UserGet), for the same caller and on the person already judged: 403 when refused, else the
   * profile fields that action may see.
   */
  authoriseAlso: (op: Pick<OpDefinition, 'name' | 'kinds' | 'masks' | 'login'>) => Promise<FieldGrant>;
}

export async function admit(services: Services, op: OpDefinition, principal: Principal, tenantId: number, metadata: Record<string, unknown>): Promise<Admission> {
  const admin = principal.kind === 'root' || principal.kind === 'tenant-admin';
  if (op.access === 'mainTenant' && (!admin || tenantId !== MAIN_TENANT_ID || principal.tenantId !== MAIN_TENANT_ID)) throw forbidden();
  if (op.access === 'admin' && !admin) throw forbidden();
  // Login xtokens act on their own record through the operations that say so; the users service checks whose.
  if (principal.kind === 'login' && op.login !== 'own') throw forbidden();

  // The person the call reached, once judged: another action of the same call is judged on them too.
  let subject: NonNullable<RequestFacts['subject']> | undefined;
  let other: { target: string; em: EntityManager } | undefined;
  const admission: Admission = {
    fields: '*',
    deniedUnlessSubject: false,
    authoriseAlso: async (also) => {
      if (principal.kind === 'login') {
        if (also.login !== 'own') throw forbidden();
        return other ? await judgeByGroups({ services, principal, tenantId, metadata }, also, other.target, other.em) : '*';
      }
      if (principal.kind !== 'role') return '*';
      const verdict = await judgeRole(services, principal, also, metadata);
      const grant = verdict.judgeSubject && subject ? verdict.judgeOrNull(subject) : verdict.grant;
      if (grant === null) throw forbidden(Messages.apiDenied);
      return grant;
    },
  };
  if (principal.kind === 'role') {
    const verdict = await judgeRole(services, principal, op, metadata);
    if (verdict.judgeSubject) {
      // A role that asks about the person may run only operations that judge every person they reach.
      if (cannotJudge(op, verdict.needs)) throw forbidden(Messages.apiDenied);
      const { judgeSubject, needs } = verdict;
      // A call that carries personal data must have judged the person it reached; one that carries none (or
      // finds nobody) stands on the verdict without them.
      admission.deniedUnlessSubject = verdict.grant === null || op.kinds.length > 0;
      if (verdict.grant !== null) admission.fields = verdict.grant;
      if (op.judges === 'list') {
        // Each listed person is judged on their own; the answer is masked row by row, so nothing is left to mask.
        admission.judgeListed = async (people, em) => {
          admission.deniedUnlessSubject = false;
          admission.fields = '*';
          const grants: (FieldGrant | null)[] = [];
          for (const { row, profile } of people) {
            const facts = await subjectFacts(services, tenantId, em, row, { profile: false, agreements: needs.agreements });
            grants.push(verdict.judgeOrNull({ ...facts, profile }));
          }
          return grants;
        };
      }
      admission.authoriseSubject = async (row, em) => {
        // No such person: denied like any refusal, so a caller the policy would refuse learns nothing.
        if (!row) {
          if (verdict.grant === null) throw forbidden(Messages.apiDenied);
          return;
        }
        subject = await subjectFacts(services, tenantId, em, row, needs);
        admission.fields = judgeSubject(subject);
        admission.deniedUnlessSubject = false;
      };
    } else {
      if (verdict.grant === null) throw forbidden(Messages.apiDenied);
      admission.fields = verdict.grant;
    }
  }
  if (principal.kind === 'login') {
    // A login xtoken reaching someone else's record: its group roles' policies decide, and may mask the answer.
    admission.authoriseOther = async (target, em) => {
      other = { target, em };
      admission.fields = await judgeByGroups({ services, principal, tenantId, metadata }, op, target, em);
    };
  }
  return admission;
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
 * about the person (`${user:FIELD}`, `${agreement:BRIEF}`), `judgeSubject` judges again once that person is found;
 * `grant` is then the verdict without them.
 */
async function judgeRole(
  services: Services,
  principal: Principal,
  op: Facts,
  metadata: Record<string, unknown>,
): Promise<{
  grant: FieldGrant | null;
  judgeSubject?: (subject: NonNullable<RequestFacts['subject']>) => FieldGrant;
  judgeOrNull: (subject: NonNullable<RequestFacts['subject']>) => FieldGrant | null;
  needs: { profile: boolean; agreements: boolean };
}> {
  const role = principal.roleId === null ? null : await services.roles.statementsOf(principal.roleId);
  if (!role) throw forbidden(Messages.apiDenied);
  const judge = (subject?: RequestFacts['subject']): FieldGrant | null =>
    grantFor(op, evaluate(role.statements, { action: op.name, kinds: op.kinds, role: role.rolename, requestMetadata: metadata, ...(subject ? { subject } : {}) }));
  const needs = subjectVariables(role.statements);
  if (!needs.profile && !needs.agreements) return { grant: judge(), needs, judgeOrNull: judge };
  return {
    grant: judge(),
    needs,
    judgeOrNull: judge,
    judgeSubject: (subject) => {
      const fields = judge(subject);
      if (fields === null) throw forbidden(Messages.apiDenied);
      return fields;
    },
  };
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

/** Who asks, in which tenant, with which request_metadata: what every verdict of one call shares. */
interface Asker {
  services: Services;
  principal: Principal;
  tenantId: number;
  metadata: Record<string, unknown>;
}

/**
 * A login xtoken on another person's record: allowed when a policy of a role the caller holds in a group allows
 * it (CONTRACT §4.9: parents and managers reading their group's members). The caller's groups and the target's
 * memberships are the facts `${user_group_id}`, `${target_group_id}` and `${target_group_members…}` refer to.
 * Inside a write the memberships are read on the transaction's connection (the embedded database has one).
 */
async function judgeByGroups(asker: Asker, op: Facts, target: string, em: EntityManager): Promise<FieldGrant> {
  const { services, principal, tenantId, metadata } = asker;
  const store = new Stores(em, tenantId).groups;
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
    const fields = grantFor(op, evaluate(role.statements, { action: op.name, kinds: op.kinds, role: role.rolename, requestMetadata: metadata, groups: { caller, target: targetGroups } }));
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
  em: EntityManager,
  row: UserRow,
  needs: { profile: boolean; agreements: boolean },
): Promise<NonNullable<RequestFacts['subject']>> {
  const now = nowSeconds();
  const [profile, agreements] = await Promise.all([
    needs.profile ? services.users.open(tenantId, row) : undefined,
    needs.agreements ? new Stores(em, tenantId).consent.agreementsOf(row.token) : undefined,
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
