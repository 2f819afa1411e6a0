// The three v1 endpoints our brief keeps for old clients (CONTRACT, standing decisions). Each runs as its v2
// counterpart, so the same policies, login-xtoken rules, transactions and audit events apply, and answers
// with v1's lowercase messages in the same JSON envelope.
import type { Context, Next } from 'koa';
import type { Services } from '../vault/services.js';
import type { OpDefinition } from '../ops/define.js';
import { executeOperation } from '../ops/execute.js';
import { requestFacts } from './request-facts.js';
import { V1Consent, V1ConsentAccept } from '../ops/v1/consent.js';
import { V1UserappPut } from '../ops/v1/userapp.js';
import { V1SessionGet } from '../ops/v1/session.js';
import { MODES, isUuid, type Mode } from '../vault/identities.js';
import { VaultError, Messages } from '../errors.js';
import type { Principal } from '../vault/credentials.js';
import { authenticateCaller } from './body.js';

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
  [Messages.missingToken]: Messages.missingToken,
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

export function v1Handlers(services: Services) {
  /** v1's errors in its own words. */
  function v1Error(err: unknown): unknown {
    if (err instanceof V1Error || !(err instanceof VaultError)) return err;
    return new V1Error(err.status, V1_MESSAGES[err.message] ?? err.message.charAt(0).toLowerCase() + err.message.slice(1));
  }

  /** Authenticates from the header, before the body is read (as v2 does). */
  async function authenticate(ctx: Context, next: Next): Promise<void> {
    const token = ctx.get('x-bunker-token');
    try {
      ctx.state.principal = await authenticateCaller(services, ctx, token || undefined, `v1 ${ctx.method} ${ctx.routerPath ?? ctx.path}`);
    } catch (err) {
      throw v1Error(err);
    }
    await next();
  }

  /** Runs the operation as the authenticated caller, and answers in v1's words. */
  async function run(ctx: Context, op: OpDefinition, body: Record<string, unknown>): Promise<void> {
    try {
      const principal = ctx.state.principal as Principal;
      const tenantId = await services.tenants.resolve(principal, ctx.get('x-bunker-tenant') || undefined, ctx.host);
      const result = await executeOperation(services, op, { principal, tenantId, request: requestFacts(ctx) }, body);
      ctx.status = 200;
      ctx.body = { ...result, status: 'ok' };
    } catch (err) {
      throw v1Error(err);
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
    authenticate,
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
