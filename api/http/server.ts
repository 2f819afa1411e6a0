// The Koa application: metrics outermost, then request ids, the envelope, the body parser and the routes.
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Services } from '../vault/services.js';
import { envelope } from './envelope.js';
import { metricsMiddleware } from './metrics.js';
import { tracingMiddleware } from './tracing.js';
import { registry } from '../metrics.js';
import { v2Handler } from './v2.js';
import { v1Handlers } from './v1.js';
import { mountPages } from './pages.js';
import { mountOidc } from './oidc.js';
import { clientAddressOf } from './client-address.js';
import { inFlightPerAddress } from './in-flight.js';
import { BodyMemory, bodyBytes } from './body-memory.js';
import { atMinimumRate } from './uploads.js';
import { clientLeft } from './body.js';
import { badRequest, Messages } from '../errors.js';
import { requestIdOf } from './request-facts.js';
import type { Principal } from '../vault/credentials.js';

/** The largest body of a v1 call (JSON or form-encoded). */
const V1_BODY_LIMIT = 1024 * 1024;

/** `traced`: tracing is on (compose.ts), and each request gets its span. */
export function createApp(services: Services, { traced = false }: { traced?: boolean } = {}): Koa {
  // Behind proxies (STRONGROOM_TRUST_PROXY) the client's address, which rate limits count, is read from
  // X-Forwarded-For from the right (client-address.ts), never its client-written leftmost entry as Koa would.
  const app = new Koa({ proxy: services.config.server.trustProxy });
  const clientAddress = clientAddressOf(services.config.server);
  const router = new Router();
  // Every body, v1's and v2's, is counted against one budget for bodies in memory (body-memory.ts).
  const memory = new BodyMemory(services.config.limits.bodyMemory);

  // The address `npm start` prints: a person opening it in a browser lands on the console.
  router.get('/', (ctx) => {
    ctx.redirect('/console/');
  });
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/status', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const checks = await Promise.allSettled([services.db.ping(), services.tokenizer.keyringInfo()]);
    const [db, tokenizer] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unavailable'));
    // The database's sentinel must open under the tokenizer's keyring (api/vault/keyring-check.ts).
    const keyring = db === 'ok' && tokenizer === 'ok' ? await services.keyringCheck.check().catch(() => 'unchecked' as const) : 'unchecked';
    // While a legacy database is upgraded the replica is ready: it serves the tenants already done (and the others'
    // calls answer 503 with Retry-After); the body says so, with the progress.
    const ready = db === 'ok' && tokenizer === 'ok' && (keyring === 'ok' || keyring === 'migrating');
    ctx.status = ready ? 200 : 503;
    const migration = keyring === 'migrating' ? { migration: await services.legacy.status().catch(() => 'unknown') } : {};
    ctx.body = { status: ready ? 'ok' : 'error', database: db, tokenizer, keyring, ...migration };
  });
  // On the public port only when no port of its own is set (STRONGROOM_METRICS_PORT): its labels name tenants.
  if (!services.config.metricsPort) {
    router.get('/metrics', async (ctx) => {
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
    });
  }
  // The body is read by the handler, once the caller is known (http/body.ts).
  router.post('/v2/:op', v2Handler(services, memory));

  // v1 clients send JSON or form-encoded records; the token is checked before the body is read.
  const v1 = v1Handlers(services);
  const v1Body = v1BodyReader(services, memory);
  router.post('/v1/consent/:mode/:identity/:brief', v1.authenticate, v1Body, (ctx) => v1.consent(ctx));
  router.post('/v1/userapp/:mode/:identity/:appname', v1.authenticate, v1Body, (ctx) => v1.userapp(ctx));
  router.get('/v1/session/session/:session', v1.authenticate, (ctx) => v1.session(ctx));
  // The console's OpenID Connect sign-in, when configured (api/http/oidc.ts).
  mountOidc(router, services);
  // The console, the portal, the API reference and the OpenAPI document (api/http/pages.ts).
  mountPages(router);

  if (traced) app.use(tracingMiddleware());
  app.use(metricsMiddleware());
  app.use(async (ctx, next) => {
    ctx.request.ip = clientAddress(ctx.req.socket.remoteAddress ?? '', ctx.get('x-forwarded-for') || undefined);
    await next();
  });
  app.use(async (ctx, next) => {
    // Every event of the request records this id (api/vault/audit/actor.ts).
    ctx.state.reqId = requestIdOf(ctx.get('x-request-id'), randomUUID);
    ctx.set('X-Request-Id', ctx.state.reqId as string);
    await next();
  });
  app.use(envelope(services.log));
  app.use(inFlightPerAddress(services.config.server.requestsPerAddress));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  // Koa logs errors itself unless told not to; ours are already logged, without request data.
  app.silent = true;
  return app;
}

/**
 * v1's body (JSON or form-encoded), read once the caller is known: within the budget for bodies in memory (503
 * past it or the caller's share) and the minimum rate, its bytes held until the call is answered.
 */
function v1BodyReader(services: Services, memory: BodyMemory) {
  const parse = koaBody({ json: true, jsonStrict: true, jsonLimit: V1_BODY_LIMIT, urlencoded: true, formLimit: V1_BODY_LIMIT, text: false, multipart: false });
  return async function v1Body(ctx: Koa.Context, next: Koa.Next): Promise<void> {
    const principal = ctx.state.principal as Principal;
    const holder = { caller: `credential:${principal.credentialId}`, tenant: `tenant:${principal.tenantId}` };
    const release = memory.reserve(ctx, holder, bodyBytes(ctx, V1_BODY_LIMIT));
    try {
      await atMinimumRate(ctx, services.config.limits, () =>
        parse(ctx, async () => {}).catch((err: unknown) => Promise.reject(clientLeft(ctx, err) ? badRequest(Messages.badBody) : err)),
      );
      await next();
    } finally {
      release();
    }
  };
}
