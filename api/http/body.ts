// The request body is read last: only once the caller is known (or the operation is public) and only up to the
// limit of what the caller may send. A request refused before its body is read is answered at once, and its
// connection closed, so the unread bytes are never buffered.
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import type { Services } from '../vault/services.js';
import type { Principal } from '../vault/credentials.js';
import { AuthenticationError, PayloadTooLargeError, UnsupportedMediaTypeError, Messages, VaultError, badRequest } from '../errors.js';
import { draftEvent } from '../vault/audit/trail.js';
import { actorOf } from '../vault/audit/actor.js';
import type { Caller } from '../ops/execute.js';
import { requestFacts } from './request-facts.js';
import { nowSeconds } from '../vault/durations.js';
import { MAIN_TENANT_ID } from '../store/schemas.js';

/** Answers this request without reading what is left of its body: the connection ends with the answer. */
export function leaveBodyUnread(ctx: Context): void {
  ctx.set('Connection', 'close');
}

/**
 * The caller behind X-Bunker-Token, checked from the header alone: the token first (a cached hash lookup), so a
 * valid credential is served whatever other clients of its address did. Only failures are counted (per address,
 * token prefix and tenant named, api/vault/limits.ts): within the budgets each leaves an audit event in the tenant
 * the call named (else the main tenant's trail); past one, it is answered 429 and backed off, unaudited. A valid
 * credential then spends one of its own calls per minute.
 */
export async function authenticateCaller(services: Services, ctx: Context, token: string | undefined, operation: string): Promise<Principal> {
  let principal: Principal;
  try {
    principal = await services.credentials.authenticate(token);
  } catch (err) {
    leaveBodyUnread(ctx);
    if (err instanceof AuthenticationError) await refusal(services, ctx, token, operation, err);
    throw err;
  }
  try {
    await services.limits.credentialCall(principal);
  } catch (err) {
    leaveBodyUnread(ctx);
    throw err;
  }
  return principal;
}

/** Counts a failed authentication (429 past a budget) and, within the budgets, audits it. */
async function refusal(services: Services, ctx: Context, token: string | undefined, operation: string, err: AuthenticationError): Promise<void> {
  const named = ctx.get('x-bunker-tenant').trim().toLowerCase() || undefined;
  await services.limits.refused({ address: ctx.ip, token, tenant: named });
  const tenantId = (named && (await services.tenants.idOf(named))) || MAIN_TENANT_ID;
  await services.audit.recordRefusal(tenantId, operation, err.reason, { address: ctx.ip, requestId: requestFacts(ctx).requestId }).catch((auditErr: unknown) => {
    services.log.error({ err: { message: (auditErr as Error).message }, operation }, 'audit of a refused call failed');
  });
}

/**
 * A known caller's body refused (not JSON, not an object, too large): its refusal goes on the tenant's trail like any
 * failed authenticated call (the audit's own failure never hides it). Answers `err`, for the caller to throw.
 */
export async function refusedBody(services: Services, operation: string, caller: Caller, err: unknown): Promise<unknown> {
  const status = (err as { status?: unknown } | null)?.status;
  if (status !== 400 && status !== 413 && status !== 415) return err;
  const msg = err instanceof VaultError ? err.message : Messages.badBody;
  const actor = await actorOf(services.roles, caller.principal, caller.request);
  await services.audit.record(caller.tenantId, draftEvent(operation, actor, {}, { status: 'error', msg }, { now: nowSeconds() })).catch((auditErr: unknown) => {
    services.log.error({ err: { message: (auditErr as Error).message }, operation }, 'audit of a refused body failed');
  });
  return err;
}

/**
 * Whether reading the body failed because the client closed its connection before it was read (it gave up while its
 * call waited for the caller to be known): the client's doing, as one closed while the body was read (a 400), not the
 * vault's failure (raw-body says 500).
 */
export function clientLeft(ctx: Context, err: unknown): boolean {
  return (err as { type?: unknown } | null)?.type === 'stream.not.readable' && ctx.req.destroyed;
}

/**
 * Reads the JSON body up to `limit` bytes. A declared length over the limit is refused unread; a body that grows
 * past it (chunked) is refused as soon as it does.
 */
export function bodyReader(limit: number) {
  const parse = koaBody({ json: true, jsonStrict: true, jsonLimit: limit, urlencoded: false, text: false, multipart: false });
  return async function readBody(ctx: Context): Promise<unknown> {
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limit) {
      leaveBodyUnread(ctx);
      throw new PayloadTooLargeError(Messages.tooLarge);
    }
    refuseNonJson(ctx);
    try {
      await parse(ctx, async () => {});
    } catch (err) {
      leaveBodyUnread(ctx);
      // A compressed body that does not decode (gzip, deflate, br) is the client's bad body, not the vault's fault.
      if (isDecodingError(err)) throw badRequest(Messages.badBody);
      if (clientLeft(ctx, err)) throw badRequest(Messages.badBody);
      // The parser refuses a `__proto__` key at any depth (prototype poisoning): the caller is told which key.
      if (err instanceof SyntaxError && /forbidden prototype property/.test(err.message)) throw badRequest(Messages.protoKey);
      throw err;
    }
    return ctx.request.body;
  };
}

/**
 * A body sent as anything but JSON is refused (415), not read as absent: `curl -d` without a JSON Content-Type,
 * or JSON sent as text/plain, would otherwise be answered as if no field had been sent. The SDKs always send
 * `application/json` (with or without a charset), and send no body at all when they have nothing to say, which
 * passes whatever its Content-Type.
 */
function refuseNonJson(ctx: Context): void {
  if (ctx.get('content-length') === '0' || ctx.request.is('application/json', '+json') !== false) return;
  leaveBodyUnread(ctx);
  // The media type alone (no parameters), in printable characters, so nothing the client wrote beside it comes back.
  const type = ctx.request.type.replace(/[^\x21-\x7e]/g, '').slice(0, 100);
  throw new UnsupportedMediaTypeError(`${Messages.notJson} (this one was sent ${type ? `as ${type}` : 'with none'})`);
}

/** zlib's refusal of a body that is not what its Content-Encoding says: `Z_DATA_ERROR` (gzip, deflate), `ERR__ERROR_…` (br). */
function isDecodingError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_'));
}
