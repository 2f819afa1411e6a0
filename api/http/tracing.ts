// The HTTP request's span, outermost, when tracing is on (compose.ts): named by the route template, never the path
// (a v1 path holds an identity), with the method, the status and the sizes. Always a root: a client's traceparent
// and tracestate are not taken (they would let a caller choose what is sampled and put its text in the trace).
import type { Context, Next } from 'koa';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { SCOPE } from '../../proto/tracing.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function tracingMiddleware() {
  const tracer = trace.getTracer(SCOPE);
  return async function traced(ctx: Context, next: Next) {
    const method = METHODS.has(ctx.method) ? ctx.method : '_OTHER';
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    let status: number | undefined;
    try {
      await context.with(trace.setSpan(ROOT_CONTEXT, span), next);
      status = ctx.status;
    } catch (err) {
      status = typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : 500;
      throw err;
    } finally {
      if (span.isRecording()) {
        const route = (ctx.state.routeLabel as string | undefined) ?? (ctx._matchedRoute as string | undefined);
        if (route) span.updateName(`${method} ${route}`);
        const sent = Number(ctx.get('content-length'));
        span.setAttributes({
          'http.request.method': method,
          ...(route ? { 'http.route': route } : {}),
          'http.response.status_code': status ?? 500,
          ...(Number.isSafeInteger(sent) && ctx.get('content-length') ? { 'http.request.body.size': sent } : {}),
          ...(typeof ctx.length === 'number' ? { 'http.response.body.size': ctx.length } : {}),
        });
        if ((status ?? 500) >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  };
}
