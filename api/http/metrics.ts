// The Koa middleware that counts every answer in `http_requests_total` (the metrics themselves: api/metrics.ts).
import type { Context, Next } from 'koa';
import { httpRequests } from '../metrics.js';

/** Outermost middleware, so errors are counted with the status the client saw. Labels use route templates. */
export function metricsMiddleware() {
  return async function metrics(ctx: Context, next: Next) {
    try {
      await next();
    } finally {
      const path = (ctx.state.routeLabel as string | undefined) ?? (ctx._matchedRoute as string | undefined) ?? 'unmatched';
      httpRequests.inc({ method: ctx.method, path, status: String(ctx.status) });
    }
  };
}
