// The tokenizer's span for a call it serves, as a child of the api's span for that call: the W3C trace context
// comes in the call's gRPC metadata, or in a Run stream batch's message (api/tokenizer-trace.ts). A call that
// carries none (the api's background work, an untraced request) makes no span: the api decides what is sampled.
import type * as grpc from '@grpc/grpc-js';
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { SCOPE } from '../proto/tracing.js';

/** A call's trace context: its metadata's `traceparent` (a unary call) or its message's (a batch on the Run stream). */
export function traceparentOf(metadata: grpc.Metadata): string {
  const [value] = metadata.get('traceparent');
  return typeof value === 'string' ? value : '';
}

/** `work` in a span for `method` when `traceparent` names a sampled parent; else `work` alone. */
export function inServedSpan<T>(method: string, traceparent: string, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!traceparent) return work(undefined);
  const parent = propagation.extract(ROOT_CONTEXT, { traceparent });
  if (((trace.getSpanContext(parent)?.traceFlags ?? 0) & TraceFlags.SAMPLED) === 0) return work(undefined);
  const attributes = { 'rpc.system': 'grpc', 'rpc.service': 'strongroom.tokenizer.v1.Tokenizer', 'rpc.method': method };
  // No active context: the tokenizer makes no spans below this one, and installs no context manager (main.ts).
  const span = trace.getTracer(SCOPE).startSpan(`serve ${method}`, { kind: SpanKind.SERVER, attributes }, parent);
  return work(span).then(
    (res) => (span.end(), res),
    (err: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', err instanceof Error ? err.constructor.name : 'unknown');
      span.end();
      throw err;
    },
  );
}
