// The tokenizer's span for a call it serves, as a child of the api's span for that call: the W3C trace context
// comes in the call's gRPC metadata (api/tokenizer-trace.ts). A call that carries none (the api's background work,
// an untraced request) makes no span: the api decides what is sampled.
import type * as grpc from '@grpc/grpc-js';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { SCOPE } from '../proto/tracing.js';

const metadataGetter = {
  get: (meta: grpc.Metadata, key: string) => {
    const values = meta.get(key);
    return values.length ? String(values[0]) : undefined;
  },
  keys: (meta: grpc.Metadata) => Object.keys(meta.getMap()),
};

/** `work` in a span for `method` when the call's metadata names a sampled parent; else `work` alone. */
export function inServedSpan<T>(method: string, metadata: grpc.Metadata | undefined, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!metadata || metadata.get('traceparent').length === 0) return work(undefined);
  const parent = propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
  if (((trace.getSpanContext(parent)?.traceFlags ?? 0) & TraceFlags.SAMPLED) === 0) return work(undefined);
  const attributes = { 'rpc.system': 'grpc', 'rpc.service': 'strongroom.tokenizer.v1.Tokenizer', 'rpc.method': method };
  const span = trace.getTracer(SCOPE).startSpan(`serve ${method}`, { kind: SpanKind.SERVER, attributes }, parent);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await work(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', err instanceof Error ? err.constructor.name : 'unknown');
      throw err;
    } finally {
      span.end();
    }
  });
}
