// Requests in flight per client address: a client (an IPv6 /64 counts as one) may have this many requests open at
// once; beyond, it is answered 503 with Retry-After and the connection closed, so thousands of slow connections
// from one address cannot hold the process. Clients behind one NAT share the cap: size it for them.
import type { Context, Next } from 'koa';
import { UnavailableError, Messages } from '../errors.js';
import { addressKey } from '../vault/limits.js';
import { leaveBodyUnread } from './body.js';

/** A middleware counting each address's requests until they are answered; `cap` 0: no cap. */
export function inFlightPerAddress(cap: number) {
  const open = new Map<string, number>();
  return async function inFlight(ctx: Context, next: Next) {
    if (!cap) return next();
    const key = addressKey(ctx.ip);
    const mine = open.get(key) ?? 0;
    if (mine >= cap) {
      leaveBodyUnread(ctx);
      throw new UnavailableError(Messages.busy);
    }
    open.set(key, mine + 1);
    try {
      await next();
    } finally {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    }
  };
}
