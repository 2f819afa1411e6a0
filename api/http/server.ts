// The Koa application: metrics outermost, then request ids, the envelope, the body parser and the routes.
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Services } from '../vault/services.js';
import { envelope } from './envelope.js';
import { metricsMiddleware, registry } from './metrics.js';
import { v2Handler } from './v2.js';

export function createApp(services: Services): Koa {
  const app = new Koa({ proxy: false });
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/status', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const checks = await Promise.allSettled([services.db.ping(), services.tokenizer.keyringInfo()]);
    const [db, tokenizer] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unavailable'));
    const ready = db === 'ok' && tokenizer === 'ok';
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'error', database: db, tokenizer };
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  router.post(
    '/v2/:op',
    koaBody({
      json: true,
      jsonStrict: true,
      jsonLimit: services.config.bodyLimit,
      urlencoded: false,
      text: false,
      multipart: false,
    }),
    v2Handler(services),
  );

  app.use(metricsMiddleware());
  app.use(async (ctx, next) => {
    ctx.state.reqId = ctx.get('x-request-id') || randomUUID();
    ctx.set('X-Request-Id', ctx.state.reqId as string);
    await next();
  });
  app.use(envelope(services.log));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  // Koa logs errors itself unless told not to; ours are already logged, without request data.
  app.silent = true;
  return app;
}
