// POST /v2/PolicyExplain (beyond the contract): why a role (or the role of an xtoken) would be allowed, refused or
// partly allowed an operation, optionally on one person: the deciding statements, the fields it would see and the
// ones masked, each condition with what it saw. The same engine and gate decisions as enforcement; no person's data.
import { z } from 'zod';
import { defineOp, type OpDefinition } from '../define.js';
import { Identity, Mode } from '../schemas.js';
import { Name, Id } from './schemas.js';
import { badRequest, notFound, Messages } from '../../errors.js';
import { evaluate, subjectVariables, type Trace, type RequestFacts } from '../../vault/policy.js';
import { maskedPaths } from '../../vault/policy-mask.js';
import { cannotJudge, grantFor, subjectFacts } from '../admission.js';
import { isUuid } from '../../vault/identities.js';

export const PolicyExplain = defineOp({
  name: 'PolicyExplain',
  access: 'mainTenant',
  kinds: [],
  transaction: 'read',
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
      roleId = (await ctx.services.roles.role(ctx.em, { name: input.rolename })).roleid;
    }
    const role = roleId === undefined ? null : await ctx.services.roles.statementsOf(roleId);
    if (!role) throw notFound(Messages.roleNotFound);

    const needs = subjectVariables(role.statements);
    let subject: RequestFacts['subject'];
    if (input.mode !== undefined && input.identity !== undefined) {
      const scope = { em: ctx.services.db.forTenant(tenantId), tenantId, now: ctx.now, inTransaction: false };
      const row = await ctx.services.users.findRow(scope, input.mode, String(input.identity));
      subject = await subjectFacts(ctx.services, tenantId, scope.em, row, needs);
      ctx.audit.record = row.token;
    }
    const trace: Trace = { statements: [], allowedBy: [], deniedFields: [] };
    const decision = evaluate(role.statements, { action: op.name, kinds: op.kinds, role: role.rolename, requestMetadata: input.request_metadata ?? {}, ...(subject ? { subject } : {}) }, trace);
    const grant = grantFor(op, decision);
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
      reason: listed
        ? 'each listed person is judged on their own: the list leaves out the people the policy refuses'
        : verdict !== 'deny'
          ? undefined
          : unjudged
            ? 'the policies ask about the person, and this operation cannot judge every person it reaches'
            : personless
              ? 'the policies ask about the person: name one (mode, identity) to judge'
              : trace.refusedBy !== undefined
                ? 'a Deny applies'
                : decision.allow
                  ? 'only some profile fields are allowed, and this answer cannot be masked'
                  : 'no Allow covers every kind of data the operation carries',
      kinds: op.kinds,
      decidedby: trace.refusedBy !== undefined ? [source(trace.refusedBy)] : trace.allowedBy.map(source),
      fields:
        grant === null
          ? { visible: [], masked: [] }
          : grant === '*'
            ? { visible: ['*'], masked: [] }
            : {
                visible: [...grant].filter((f) => !f.startsWith('!')),
                // What the masking itself hides, each with the first Deny that named it.
                masked: maskedPaths(grant).map((field) => ({ field, ...source(trace.deniedFields.find((d) => d.field === field)!.index) })),
              },
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
