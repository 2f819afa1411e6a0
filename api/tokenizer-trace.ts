// A tokenizer call's span (when its request is traced), and the W3C trace context put in the call's gRPC metadata
// (or, for a batch on the shared Run stream, in its message), so that the tokenizer's span for the call it serves is
// this span's child in the same trace.
import * as grpc from '@grpc/grpc-js';
import { context, propagation, SpanKind, trace, type Span } from '@opentelemetry/api';
import { failed, recording, SCOPE } from '../proto/tracing.js';

const metadataSetter = { set: (meta: grpc.Metadata, key: string, value: string) => meta.set(key, value) };

/** The metadata of every call: wait for a tokenizer that is restarting, and the trace context when traced. */
export function callMetadata(): grpc.Metadata {
  const meta = new grpc.Metadata({ waitForReady: true });
  propagation.inject(context.active(), meta, metadataSetter);
  return meta;
}

/** The current trace context as a W3C `traceparent` value, for a batch on the shared stream (its metadata is the stream's). */
export function traceparent(): string {
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? '';
}

/**
 * `call` in a span named after the tokenizer's method; `size` (items and bytes of a batch) is read only when traced.
 * `call` gets the span to record the gRPC status on.
 */
export function inTokenizerSpan<T>(method: string, size: (() => { items: number; bytes: number }) | undefined, call: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!recording()) return call(undefined);
  const attributes = { 'rpc.system': 'grpc', 'rpc.service': 'strongroom.tokenizer.v1.Tokenizer', 'rpc.method': method };
  return trace.getTracer(SCOPE).startActiveSpan(`tokenizer ${method}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    if (size) {
      const { items, bytes } = size();
      span.setAttributes({ 'strongroom.tokenizer.items': items, 'strongroom.tokenizer.bytes': bytes });
    }
    try {
      return await call(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}
