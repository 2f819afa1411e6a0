// The three v1 endpoints our brief keeps for old clients (CONTRACT, standing decisions). Each runs as its v2
// counterpart, so the same policies, login-xtoken rules, transactions and audit events apply, and answers
// with v1's lowercase messages in the same JSON envelope.
import type { Context } from 'koa';
import { z } from 'zod';
import type { Services } from '../vault/services.js';
import { defineOp, type OpDefinition } from '../ops/define.js';
import { executeOperation } from '../ops/execute.js';
import { subjectRow } from '../ops/subject.js';
import { recordAgreement } from '../ops/consent/AgreementAccept.js';
import { MODES, isUuid, type Mode } from '../vault/identities.js';
import { agreementStatus, basisType } from '../vault/consent.js';
import { VaultError, badRequest, Messages } from '../errors.js';

/** v1's own words for the errors its clients know. */
const V1_MESSAGES: Record<string, string> = {
  [Messages.userNotFound]: 'user not found',
  [Messages.appNotFound]: 'app record not found',
  [Messages.sessionNotFound]: 'session not found',
  [Messages.legalBasisNotFound]: 'legal basis not found',
  [Messages.legalBasisInactive]: 'legal basis is not active',
  [Messages.badMode]: 'bad mode',
  [Messages.badUuid]: 'bad uuid',
  [Messages.accessDenied]: 'access denied',
  [Messages.apiDenied]: 'access denied',
};

class V1Error extends VaultError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const BRIEF = /^[a-z0-9-]{1,64}$/;
const APPNAME = /^[a-z0-9-]{1,64}$/;

/** A v1 consent record: status (accept/cancel or any alias), method, reference, who, start and expiry. */
const V1Consent = z.object({
  status: z.string().optional(),
  consentmethod: z.string().max(1024).optional(),
  agreementmethod: z.string().max(1024).optional(),
  referencecode: z.string().max(1024).optional(),
  lastmodifiedby: z.string().max(1024).optional(),
  lawfulbasis: z.string().optional(),
  starttime: z.union([z.string(), z.number()]).optional(),
  expiration: z.union([z.string(), z.number()]).optional(),
  finaltime: z.union([z.string(), z.number()]).optional(),
});

/** v1 consent: an AgreementAccept whose legal basis is created on first use, as v1 briefs were free-form. */
const V1ConsentAccept = defineOp({
  name: 'AgreementAccept',
  access: 'tenant',
  effect: 'write',
  input: V1Consent.extend({ mode: z.enum(MODES), identity: z.string(), brief: z.string() }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    const consent = ctx.services.consent;
    const type = input.lawfulbasis === undefined ? 'consent' : basisType(input.lawfulbasis);
    if (!type) throw badRequest('bad lawfulbasis value');
    if (input.status !== undefined && !agreementStatus(input.status)) throw badRequest('bad status value');
    if (!(await ctx.stores.consent.basis(input.brief))) await consent.createBasis(ctx, input.brief, { basistype: type });
    await recordAgreement(ctx, row.token, { ...input, agreementmethod: input.consentmethod ?? input.agreementmethod, finaltime: input.expiration ?? input.finaltime }, 'expiration');
    return {};
  },
});

/** v1 userapp: creates the person's record for the app, or merges into the one there is. */
const V1UserappPut = defineOp({
  name: 'AppdataUpdate',
  access: 'tenant',
  effect: 'write',
  input: z.object({ mode: z.enum(MODES), identity: z.string(), appname: z.string(), appdata: z.record(z.string(), z.unknown()) }),
  async run({ input, ctx }) {
    ctx.audit.app = input.appname;
    const row = await subjectRow(ctx, input, true);
    await ctx.services.appdata.merge(ctx, row.token, input.appname, input.appdata, { create: true });
    return { token: row.token };
  },
});

const V1SessionGet = defineOp({
  name: 'SessionGet',
  access: 'tenant',
  effect: 'read',
  input: z.object({ sessionuuid: z.string() }),
  async run({ input, ctx }) {
    const { row, data } = await ctx.services.sessions.get(ctx, input.sessionuuid);
    if (row.user_token) ctx.audit.record = row.user_token;
    return { session: row.sessionuuid, when: row.updated, data };
  },
});

export function v1Handlers(services: Services) {
  /** Authenticates as v2 does, runs the operation, and answers in v1's words. */
  async function run(ctx: Context, op: OpDefinition, body: Record<string, unknown>): Promise<void> {
    try {
      const token = ctx.get('x-bunker-token');
      if (!token) throw new V1Error(403, 'missing X-Bunker-Token header');
      const principal = await services.credentials.authenticate(token);
      const tenantId = await services.tenants.resolve(principal, ctx.get('x-bunker-tenant') || undefined, ctx.host);
      const result = await executeOperation(services, op, principal, tenantId, body);
      ctx.status = 200;
      ctx.body = { status: 'ok', ...result };
    } catch (err) {
      if (err instanceof V1Error) throw err;
      if (err instanceof VaultError) {
        throw new V1Error(err.status, V1_MESSAGES[err.message] ?? err.message.charAt(0).toLowerCase() + err.message.slice(1));
      }
      throw err;
    }
  }

  function userRef(ctx: Context): { mode: Mode; identity: string } {
    const mode = String(ctx.params.mode ?? '');
    if (!(MODES as readonly string[]).includes(mode)) throw new V1Error(400, 'bad mode');
    const identity = String(ctx.params.identity ?? '');
    if (mode === 'token' && !isUuid(identity)) throw new V1Error(400, 'bad token format');
    return { mode: mode as Mode, identity };
  }

  function bodyObject(ctx: Context): Record<string, unknown> {
    const body = ctx.request.body as unknown;
    if (body === undefined || body === null || body === '') return {};
    if (typeof body !== 'object' || Array.isArray(body)) throw new V1Error(400, 'failed to decode request body');
    return body as Record<string, unknown>;
  }

  return {
    /** POST /v1/consent/{mode}/{identity}/{brief} */
    async consent(ctx: Context) {
      const ref = userRef(ctx);
      const brief = String(ctx.params.brief ?? '').toLowerCase();
      if (!BRIEF.test(brief)) throw new V1Error(400, 'bad brief format');
      const record = V1Consent.safeParse(bodyObject(ctx));
      if (!record.success) throw new V1Error(400, `bad ${record.error.issues[0]?.path.join('.') || 'request'} value`);
      await run(ctx, V1ConsentAccept, { ...record.data, ...ref, brief });
    },
    /** POST /v1/userapp/{mode}/{identity}/{appname} */
    async userapp(ctx: Context) {
      const ref = userRef(ctx);
      const appname = String(ctx.params.appname ?? '').toLowerCase();
      if (!APPNAME.test(appname)) throw new V1Error(400, 'bad appname format');
      const { request_metadata: _ignored, ...appdata } = bodyObject(ctx);
      await run(ctx, V1UserappPut, { ...ref, appname, appdata });
    },
    /** GET /v1/session/session/{session} */
    async session(ctx: Context) {
      const session = String(ctx.params.session ?? '').toLowerCase();
      if (!isUuid(session)) throw new V1Error(400, 'bad session format');
      await run(ctx, V1SessionGet, { sessionuuid: session });
    },
  };
}
