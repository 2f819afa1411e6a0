// The request body is read last: only once the caller is known (or the operation is public) and only up to the
// limit of what the caller may send. A request refused before its body is read is answered at once, and its
// connection closed, so the unread bytes are never buffered.
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import type { Services } from '../vault/services.js';
import type { Principal } from '../vault/credentials.js';
import { AuthenticationError, PayloadTooLargeError, UnavailableError, Messages } from '../errors.js';
import { MAIN_TENANT_ID } from '../store/schemas.js';

/** Answers this request without reading what is left of its body: the connection ends with the answer. */
export function leaveBodyUnread(ctx: Context): void {
  ctx.set('Connection', 'close');
}

/**
 * The caller behind X-Bunker-Token, checked from the header alone. An address blocked for failed
 * authentications is turned away first; every failure counts against the address and leaves an audit event in
 * the tenant the call named (else the main tenant's trail).
 */
export async function authenticateCaller(services: Services, ctx: Context, token: string | undefined, operation: string): Promise<Principal> {
  try {
    services.limits.checkAddress(ctx.ip);
    return await services.credentials.authenticate(token);
  } catch (err) {
    leaveBodyUnread(ctx);
    if (err instanceof AuthenticationError) {
      await services.limits.authFailed(ctx.ip);
      const named = ctx.get('x-bunker-tenant').trim().toLowerCase();
      const tenantId = (named && (await services.tenants.idOf(named))) || MAIN_TENANT_ID;
      await services.audit.recordRefusal(tenantId, operation, err.reason, ctx.ip).catch((auditErr: unknown) => {
        services.log.error({ err: { message: (auditErr as Error).message }, operation }, 'audit of a refused call failed');
      });
    }
    throw err;
  }
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
    try {
      await parse(ctx, async () => {});
    } catch (err) {
      leaveBodyUnread(ctx);
      throw err;
    }
    return ctx.request.body;
  };
}

/**
 * How many large bodies may be in memory at once (FileCreate's files). Beyond that a caller is asked to come back
 * (503 with Retry-After) rather than the process growing without bound.
 */
export class LargeBodies {
  private inUse = 0;

  constructor(private readonly slots: number) {}

  /** A slot, to be released when the request is done; 503 when none is free. */
  take(ctx: Context): () => void {
    if (this.inUse >= this.slots) {
      leaveBodyUnread(ctx);
      throw new UnavailableError(Messages.busy);
    }
    this.inUse++;
    let released = false;
    return () => {
      if (!released) this.inUse--;
      released = true;
    };
  }
}
