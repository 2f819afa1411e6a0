// What an audit event learns of the request itself: its id, the client's address and the caller's stated purpose.
import type { Context } from 'koa';
import type { RequestFacts } from '../vault/audit/actor.js';

/**
 * The header the console sends on the reads it makes for itself (its tenant list, its roles and policies): with
 * the value `housekeeping`, such a call is marked and left out of the audit listings by default. Honoured only for
 * operations that may be housekeeping and only when the call names nobody (api/ops/housekeeping.ts).
 */
export const PURPOSE_HEADER = 'X-Strongroom-Purpose';

/** A client's own X-Request-Id is kept only as a UUID: free text there would put whatever it says on the trail. */
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The request's id: the client's X-Request-Id when it is a UUID, else a new one. */
export function requestIdOf(sent: string, made: () => string): string {
  return REQUEST_ID.test(sent) ? sent.toLowerCase() : made();
}

export function requestFacts(ctx: Context): RequestFacts {
  return {
    requestId: typeof ctx.state.reqId === 'string' ? ctx.state.reqId : null,
    address: ctx.ip || null,
    housekeeping: ctx.get(PURPOSE_HEADER).trim().toLowerCase() === 'housekeeping',
  };
}
