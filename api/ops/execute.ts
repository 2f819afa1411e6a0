// Runs one operation: validate, authorise, run (in a transaction for writes), write its audit event, answer.
import type { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OpDefinition, OpContext } from './define.js';
import type { Services } from '../vault/services.js';
import type { Principal } from '../vault/credentials.js';
import { draftEvent, type AuditNote } from '../vault/audit.js';
import { nowSeconds } from '../vault/durations.js';
import { MAIN_TENANT_ID } from '../store/database.js';
import { VaultError, badRequest, forbidden, Messages } from '../errors.js';
import { fromDatabaseError } from '../store/errors.js';
import { evaluate, maskProfile, subjectVariables, type FieldGrant, type RequestFacts } from '../vault/policy.js';
import { Stores } from '../store/stores.js';
import { effectiveStatus } from '../vault/consent.js';
import type { UserRow } from '../store/users.js';

/** `null` means absent; numeric strings are accepted for every `*id` field (the SDKs send both). */
export function normaliseBody(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === null) continue;
    // Top-level strings are names, ids and lookups, stored as text: PostgreSQL text cannot hold a NUL.
    if (typeof value === 'string' && value.includes('\u0000')) throw badRequest(`Invalid API request parameter: ${key} must not contain NUL characters`);
    out[key] = key.endsWith('id') && typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return out;
}

/** One 400 naming the fields: missing ones together, else the first invalid one. */
export function validationMessage(error: z.ZodError, body: unknown): string {
  const missing = error.issues.filter((i) => valueAt(body, i.path) === undefined).map((i) => i.path.join('.'));
  if (missing.length) return `Missing API request parameters: ${[...new Set(missing)].join(', ')}`;
  const first = error.issues[0]!;
  const contractual = Object.values(Messages) as string[];
  if (contractual.includes(first.message) || first.message.startsWith('Invalid API request parameter')) return first.message;
  const path = first.path.join('.') || 'body';
  return `Invalid API request parameter: ${path}: ${first.message.replace(/^Invalid input: /, '')}`;
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v = body;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * What a login xtoken may call: reads of its own record, its consent, and the *Request operations through
 * which it asks for changes (an admin approves them). Operations that name a person check it is the caller.
 */
const LOGIN_OPERATIONS = new Set([
  'UserGet',
  'UserListVersions',
  'AuditListUserEvents',
  'AppdataGet',
  'AppdataListUserAppNames',
  'AppdataListVersions',
  'LegalBasisListAgreements',
  'AgreementAccept',
  'AgreementGet',
  'AgreementListUserAgreements',
  'AgreementCancelRequest',
  'UserDeleteRequest',
  'UserUpdateRequest',
  'UserPatchRequest',
  'AppdataUpdateRequest',
  'UserRequestGet',
  'UserRequestCancel',
  'UserRequestListUserRequests',
  'SessionListUserSessions',
  'SharedRecordCreate',
  'FileGet',
  'FileListUserFiles',
]);

/**
 * The role's verdict on this call: 403 `API access denied`, or the profile fields it may see. When the role's
 * conditions ask about the person the call is about (`${user:FIELD}`, `${agreement:BRIEF}`), the verdict is
 * judged again once that person is found (`judgeSubject`); `grant` is then the verdict without them.
 */
async function authoriseRole(
  services: Services,
  principal: Principal,
  action: string,
  requestMetadata: unknown,
): Promise<{ grant: FieldGrant | null; judgeSubject?: (subject: NonNullable<RequestFacts['subject']>) => FieldGrant; needs?: { profile: boolean; agreements: boolean } }> {
  const role = principal.roleId === null ? null : await services.roles.statementsOf(principal.roleId);
  if (!role) throw forbidden(Messages.apiDenied);
  const metadata = typeof requestMetadata === 'object' && requestMetadata !== null ? (requestMetadata as Record<string, unknown>) : {};
  const judge = (subject?: RequestFacts['subject']): FieldGrant | null => {
    const decision = evaluate(role.statements, { action, role: role.rolename, requestMetadata: metadata, ...(subject ? { subject } : {}) });
    if (!decision.allow) return null;
    // A grant of some fields can be honoured only where the answer is profiles this layer masks; elsewhere
    // (audit details, reports) personal data takes other shapes, so a partial grant is no grant.
    if (decision.fields !== '*' && !MASKABLE_OPERATIONS.has(action)) return null;
    return decision.fields;
  };
  const grant = judge();
  const needs = subjectVariables(role.statements);
  if (!needs.profile && !needs.agreements) {
    if (grant === null) throw forbidden(Messages.apiDenied);
    return { grant };
  }
  return {
    grant,
    needs,
    judgeSubject: (subject) => {
      const fields = judge(subject);
      if (fields === null) throw forbidden(Messages.apiDenied);
      return fields;
    },
  };
}

/**
 * A login xtoken on another person's record: allowed when a policy of a role the caller holds in a group allows
 * it (CONTRACT §4.9: parents and managers reading their group's members). The caller's groups and the target's
 * memberships are the facts `${user_group_id}`, `${target_group_id}` and `${target_group_members…}` refer to.
 */
async function authoriseByGroups(
  services: Services,
  principal: Principal,
  tenantId: number,
  action: string,
  requestMetadata: unknown,
  target: string,
  em: EntityManager,
): Promise<FieldGrant> {
  const store = new Stores(em, tenantId).groups;
  const [mine, theirs] = await Promise.all([store.membershipsOf(principal.userToken!), store.membershipsOf(target)]);
  const roleNames = new Map<number, string>();
  for (const id of new Set([...mine, ...theirs].map((m) => m.roleId).filter((id): id is number => id !== null))) {
    const role = await services.roles.statementsOf(id);
    if (role) roleNames.set(id, role.rolename);
  }
  const metadata = typeof requestMetadata === 'object' && requestMetadata !== null ? (requestMetadata as Record<string, unknown>) : {};
  const targetGroups = theirs.map((m) => ({ groupId: m.groupId, role: m.roleId === null ? null : (roleNames.get(m.roleId) ?? null) }));
  let all = false;
  const granted = new Set<string>();
  for (const roleId of new Set(mine.map((m) => m.roleId).filter((id): id is number => id !== null))) {
    const role = await services.roles.statementsOf(roleId);
    if (!role) continue;
    const caller = mine.filter((m) => m.roleId === roleId).map((m) => m.groupId);
    const decision = evaluate(role.statements, { action, role: role.rolename, requestMetadata: metadata, groups: { caller, target: targetGroups } });
    if (!decision.allow) continue;
    if (decision.fields === '*') all = true;
    else for (const f of decision.fields) granted.add(f);
  }
  if (!all && granted.size === 0) throw forbidden();
  const fields: FieldGrant = all ? '*' : granted;
  if (fields !== '*' && !MASKABLE_OPERATIONS.has(action)) throw forbidden();
  return fields;
}

/** Operations whose answers carry profiles only as `profile` (or `rows[].profile`), which `masked` handles. */
const MASKABLE_OPERATIONS = new Set(['UserGet', 'BulkListUsers', 'BulkListAllUsers', 'BulkListGroupUsers', 'UserSearch']);

/** Profiles in an answer (`profile`, and `profile` of each of `rows`) as a partial grant lets the caller see them. */
function masked(result: Record<string, unknown>, fields: FieldGrant): Record<string, unknown> {
  if (fields === '*') return result;
  const maskOne = (o: unknown) =>
    o && typeof o === 'object' && 'profile' in o && typeof (o as { profile: unknown }).profile === 'object' && (o as { profile: unknown }).profile !== null
      ? { ...o, profile: maskProfile((o as { profile: Record<string, unknown> }).profile, fields) }
      : o;
  const out = maskOne(result) as Record<string, unknown>;
  return Array.isArray(out.rows) ? { ...out, rows: out.rows.map(maskOne) } : out;
}

/** What a role's conditions may ask about the person a call is about: their profile, their agreements' status. */
async function subjectFacts(
  services: Services,
  tenantId: number,
  em: EntityManager,
  row: UserRow,
  needs: { profile: boolean; agreements: boolean },
): Promise<NonNullable<RequestFacts['subject']>> {
  const now = nowSeconds();
  const [profile, agreements] = await Promise.all([
    needs.profile ? services.users.open(tenantId, row.token, row.profile) : undefined,
    needs.agreements ? new Stores(em, tenantId).consent.agreementsOf(row.token) : undefined,
  ]);
  return {
    ...(profile ? { profile } : {}),
    ...(agreements ? { agreements: Object.fromEntries(agreements.map((a) => [a.brief, effectiveStatus(a, now)])) } : {}),
  };
}

/** Public operations: no credential, no audit event (the contract's portal endpoints); input rules as usual. */
export async function executePublicOperation(services: Services, op: OpDefinition, tenantId: number, rawBody: Record<string, unknown>) {
  const body = normaliseBody(rawBody);
  const parsed = op.input.safeParse(body);
  if (!parsed.success) throw badRequest(validationMessage(parsed.error, body));
  const principal: Principal = { credentialId: '', kind: 'public', tenantId, roleId: null, userToken: null, expiresAt: null };
  const em = services.db.forTenant(tenantId);
  const ctx: OpContext = { services, principal, tenantId, em, stores: new Stores(em, tenantId), inTransaction: false, audit: {}, now: nowSeconds() };
  return op.run({ input: parsed.data, ctx });
}

export async function executeOperation(
  services: Services,
  op: OpDefinition,
  principal: Principal,
  tenantId: number,
  rawBody: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const now = nowSeconds();
  const requestMetadata = rawBody.request_metadata;
  const note: AuditNote = {};
  const audited = (status: 'ok' | 'error', msg?: string) =>
    draftEvent(op.name, principal, note, msg === undefined ? { status } : { status, msg }, requestMetadata, now);

  try {
    const admin = principal.kind === 'root' || principal.kind === 'tenant-admin';
    if (op.access === 'mainTenant' && (!admin || tenantId !== MAIN_TENANT_ID || principal.tenantId !== MAIN_TENANT_ID)) throw forbidden();
    if (op.access === 'admin' && !admin) throw forbidden();
    // Login xtokens act on their own record through a few operations; the user store checks whose record it is.
    if (principal.kind === 'login' && !LOGIN_OPERATIONS.has(op.name)) throw forbidden();
    if (requestMetadata !== undefined && (typeof requestMetadata !== 'object' || Array.isArray(requestMetadata))) {
      throw badRequest('Invalid API request parameter: request_metadata: expected object');
    }
    // Role xtokens: judged by their role's policies on every call; a partial grant masks the answer.
    let fields: FieldGrant = '*';
    let authoriseSubject: OpContext['authoriseSubject'];
    // With conditions about the person, a call that never finds one stands on the verdict without them.
    let deniedUnlessSubject = false;
    if (principal.kind === 'role') {
      const verdict = await authoriseRole(services, principal, op.name, requestMetadata);
      if (verdict.grant !== null) fields = verdict.grant;
      if (verdict.judgeSubject) {
        const { judgeSubject, needs } = verdict;
        deniedUnlessSubject = verdict.grant === null;
        authoriseSubject = async (row: UserRow | null, em: EntityManager) => {
          // No such person: denied like any refusal, so a caller the policy would refuse learns nothing.
          if (!row) {
            if (deniedUnlessSubject) throw forbidden(Messages.apiDenied);
            return;
          }
          fields = judgeSubject(await subjectFacts(services, tenantId, em, row, needs!));
          deniedUnlessSubject = false;
        };
      }
    }
    const judged = () => {
      if (deniedUnlessSubject) throw forbidden(Messages.apiDenied);
    };
    // A login xtoken reaching someone else's record: its group roles' policies decide, and may mask the answer.
    // Inside a write the memberships are read on the transaction's connection (the embedded database has one).
    let txEm: EntityManager | undefined;
    const authoriseOther =
      principal.kind === 'login'
        ? async (target: string) => {
            fields = await authoriseByGroups(services, principal, tenantId, op.name, requestMetadata, target, txEm ?? services.db.forTenant(tenantId));
          }
        : undefined;
    const body = normaliseBody(rawBody);
    const parsed = op.input.safeParse(body);
    if (!parsed.success) throw badRequest(validationMessage(parsed.error, body));
    if (op.effect === 'write') {
      return await services.db.forTenant(tenantId).transactional(async (tx) => {
        // Tenant operations run as the tenant's database role; admin and main-tenant ones reach global tables.
        if (op.access === 'tenant') await services.db.enterTenantRole(tx as EntityManager, tenantId);
        txEm = tx as EntityManager;
        const ctx: OpContext = { services, principal, tenantId, em: tx as EntityManager, stores: new Stores(tx as EntityManager, tenantId), inTransaction: true, authoriseOther, authoriseSubject, audit: note, now };
        const result = await op.run({ input: parsed.data, ctx });
        judged();
        await services.audit.writeInTx(tx as EntityManager, tenantId, [audited('ok')]);
        return masked(result, fields);
      });
    }
    if (op.effect === 'admin') {
      const em = services.db.forTenant(tenantId);
      const ctx: OpContext = { services, principal, tenantId, em, stores: new Stores(em, tenantId), inTransaction: false, authoriseOther, authoriseSubject, audit: note, now };
      const result = await op.run({ input: parsed.data, ctx });
      judged();
      await services.audit.record(tenantId, audited('ok'));
      return masked(result, fields);
    }
    // Reads fork their manager only if they use it: most go through shared, coalesced statements.
    let em: EntityManager | undefined;
    let stores: Stores | undefined;
    const ctx: OpContext = {
      services,
      principal,
      tenantId,
      get em() {
        return (em ??= services.db.forTenant(tenantId));
      },
      get stores() {
        return (stores ??= new Stores(this.em, tenantId));
      },
      inTransaction: false,
      authoriseOther,
      authoriseSubject,
      audit: note,
      now,
    };
    const result = await op.run({ input: parsed.data, ctx });
    judged();
    await services.audit.record(tenantId, audited('ok'));
    return masked(result, fields);
  } catch (caught) {
    const err = fromDatabaseError(caught);
    // Failed calls are audited too; a failure to audit them must not hide the original error.
    const msg = err instanceof VaultError ? err.message : Messages.internal;
    await services.audit.record(tenantId, audited('error', msg)).catch((auditErr: unknown) => {
      services.log.error({ err: { message: (auditErr as Error).message }, op: op.name }, 'audit of a failed call failed');
    });
    throw err;
  }
}
