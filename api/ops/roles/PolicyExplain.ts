// POST /v2/PolicyExplain (beyond the contract): why a role (or the role of an xtoken) would be allowed, refused or
// partly allowed an operation, optionally on one person: the deciding statements, the fields it would see and the
// ones masked, each condition with what it saw. The same engine and gate decisions as enforcement; no person's data.
import { z } from 'zod';
import { defineOp, type OpDefinition, mainTenantOp } from '../define.js';
import { AnyObject } from '../outputs.js';
import { ADA } from '../examples.js';
import { Identity, Mode } from '../schemas.js';
import { Name, Id } from './schemas.js';
import { badRequest, notFound, Messages } from '../../errors.js';
import { evaluate, subjectVariables, type FieldGrant, type PolicyStatement, type Trace, type RequestFacts } from '../../vault/policy.js';
import { UserGet } from '../users/UserGet.js';
import { maskedPaths } from '../../vault/policy-mask.js';
import { alsoShownBy, cannotJudge, grantFor, subjectFacts } from '../admission.js';
import { isUuid } from '../../vault/identities.js';

export const PolicyExplain = defineOp({
  name: 'PolicyExplain',
  summary: 'Why a role (or an xtoken) would be allowed, refused or partly allowed an operation, optionally on one person',
  output: z.object({
    verdict: z.enum(['allow', 'deny', 'partial']),
    reason: z.string().optional().meta({ description: 'Why, in words, when it is not a plain allow.' }),
    kinds: z.array(z.string()).meta({ description: 'The kinds of personal data the operation carries.' }),
    decidedby: z.array(AnyObject).meta({ description: 'The statements that decided it: policy, statement index, effect.' }),
    fields: z.object({ visible: z.array(z.string()), masked: z.array(z.unknown()) }).meta({ description: 'The profile fields the answer would show, and those masked.' }),
    reads: AnyObject.optional().meta({ description: 'For an operation that reads profile values: what it may read.' }),
    conditions: z.array(AnyObject).meta({ description: 'Each condition, with what it saw (never a value about the person) and whether it matched.' }),
  }),
  example: { rolename: 'support', operation: 'UserGet', ...ADA },
  ...mainTenantOp('read'),
  input: z.object({
    roleid: Id.optional(),
    rolename: Name.optional(),
    xtokenid: z.string().refine(isUuid, 'must be a UUID').optional(),
    operation: z.string().min(1).max(64),
    mode: Mode.optional(),
    identity: Identity.optional(),
    tenantid: Id.optional(),
    request_metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  async run({ input, ctx }) {
    const { operations } = await import('../index.js');
    const op: OpDefinition | undefined = operations.find((o) => o.name === input.operation);
    if (!op) throw badRequest(`Invalid API request parameter: operation: no operation named ${input.operation}`);
    if ((input.mode === undefined) !== (input.identity === undefined)) throw badRequest(`${Messages.missing}${input.mode === undefined ? 'mode' : 'identity'}`);

    let roleId = input.roleid;
    let tenantId = input.tenantid ?? ctx.tenantId;
    if (input.xtokenid !== undefined) {
      const credential = await ctx.stores.credentials.byId(input.xtokenid.toLowerCase());
      if (!credential || credential.kind !== 'role') throw notFound('The xtoken was not found');
      roleId = credential.roleId ?? undefined;
      tenantId = credential.tenantId;
    } else if (roleId === undefined) {
      if (input.rolename === undefined) throw badRequest(`${Messages.missing}roleid`);
      roleId = (await ctx.services.roles.role(ctx.stores, { name: input.rolename })).roleid;
    }
    const role = roleId === undefined ? null : await ctx.services.roles.statementsOf(roleId);
    if (!role) throw notFound(Messages.roleNotFound);

    const needs = subjectVariables(role.statements);
    let subject: RequestFacts['subject'];
    if (input.mode !== undefined && input.identity !== undefined) {
      // Named in the event before the lookup, found or not: a call that reached for a person is never housekeeping.
      ctx.audit.mode = input.mode;
      ctx.audit.identity = String(input.identity);
      const scope = ctx.services.users.readScope(tenantId, ctx.now);
      const row = await ctx.services.users.findRow(scope, input.mode, String(input.identity));
      subject = await subjectFacts(ctx.services, tenantId, scope.stores, row, needs);
      ctx.audit.record = row.token;
    }
    const facts: RequestFacts = { action: op.name, kinds: op.kinds, role: role.rolename, requestMetadata: input.request_metadata ?? {}, ...(subject ? { subject } : {}) };
    const trace: Trace = { statements: [], allowedBy: [], deniedFields: [] };
    const decision = evaluate(role.statements, facts, trace);
    const own = grantFor(op, decision);
    // An answer that shows profile values shows at most what the role's UserGet shows (admission.ts).
    const grant = op.showsProfile && own !== null ? alsoShownBy(op, own, grantFor(UserGet, evaluate(role.statements, { ...facts, action: UserGet.name, kinds: UserGet.kinds }))) : own;
    const unjudged = cannotJudge(op, needs);
    const personal = needs.profile || needs.agreements;
    // A list judges each person it would answer: without one named, the verdict is that of the list as a whole.
    const listed = personal && op.judges === 'list' && !subject;
    const personless = personal && op.kinds.length > 0 && !subject && !listed;
    const verdict = listed ? 'partial' : grant === null || unjudged || personless ? 'deny' : grant === '*' ? 'allow' : 'partial';

    const source = (index: number) => ({ policy: role.sources[index]?.policyname ?? null, statement: role.sources[index]?.index ?? index, effect: role.statements[index]!.Effect });
    // A condition about the person shows whether it matched, never the person's value.
    const aboutPerson = (key: string) => /^\$\{(user|agreement):/.test(key);
    return {
      verdict,
      reason: listed ? 'each listed person is judged on their own: the list leaves out the people the policy refuses' : verdict === 'deny' ? refusal({ unjudged, personless, trace, own, decision }) : undefined,
      kinds: op.kinds,
      decidedby: trace.refusedBy !== undefined ? [source(trace.refusedBy)] : trace.allowedBy.map(source),
      fields: fieldsOf(own, trace, source),
      ...((op.readsProfile && verdict !== 'deny') || (op.showsProfile && own !== null) ? { reads: readsOf(role.statements, facts, source) } : {}),
      conditions: trace.statements
        .filter((s) => s.conditions.length > 0)
        .flatMap((s) =>
          s.conditions.map((c) => ({
            ...source(s.index),
            operator: c.operator,
            variable: c.key,
            saw: aboutPerson(c.key) ? undefined : (c.saw ?? null),
            wanted: c.wanted,
            matched: c.matched,
          })),
        ),
    };
  },
});

/** Why a verdict is a refusal, in the order the gate refuses. */
function refusal(why: { unjudged: boolean; personless: boolean; trace: Trace; own: FieldGrant | null; decision: { allow: boolean } }): string {
  if (why.unjudged) return 'the policies ask about the person, and this operation cannot judge every person it reaches';
  if (why.personless) return 'the policies ask about the person: name one (mode, identity) to judge';
  if (why.trace.refusedBy !== undefined) return 'a Deny applies';
  if (why.own !== null) return 'the answer shows profile values, and the role’s UserGet does not show them all (see reads)';
  if (why.decision.allow) return 'only some profile fields are allowed, and this answer cannot be masked';
  return 'no Allow covers every kind of data the operation carries';
}

type Source = (index: number) => { policy: string | null; statement: number; effect: string };

/** The fields a grant shows, and those it masks, each with the first Deny that named it. */
function fieldsOf(grant: FieldGrant | null, trace: Trace, source: Source) {
  if (grant === null) return { visible: [], masked: [] };
  if (grant === '*') return { visible: ['*'], masked: [] };
  return {
    visible: [...grant].filter((f) => !f.startsWith('!')),
    masked: maskedPaths(grant).map((field) => ({ field, ...source(trace.deniedFields.find((d) => d.field === field)!.index) })),
  };
}

/**
 * For an operation that reads profile values for the caller (a patch's test and copy, a share): what it may read,
 * which is what the role's UserGet shows whole (api/ops/profile-reads.ts). A field a Deny of UserGet hides is listed
 * in `masked` here too: the operation refuses to read it.
 */
function readsOf(statements: PolicyStatement[], facts: RequestFacts, source: Source) {
  const trace: Trace = { statements: [], allowedBy: [], deniedFields: [] };
  const decision = evaluate(statements, { ...facts, action: UserGet.name, kinds: UserGet.kinds }, trace);
  return { as: UserGet.name, ...fieldsOf(grantFor(UserGet, decision), trace, source) };
}
