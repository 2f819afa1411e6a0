// The OpenTelemetry SDK, loaded only when tracing is on (proto/tracing.ts): a tracer provider with the sampler the
// environment names, the allow-list applied to every span before it is batched, and the OTLP/HTTP exporter (JSON).
import { context, propagation, trace, type Attributes, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { allowedOnly } from './trace-attributes.js';
import type { Tracing, TracingSettings } from './tracing.js';

export function samplerOf(settings: Pick<TracingSettings, 'sampler' | 'ratio'>): Sampler {
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(settings.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.ratio) });
  }
}

/** A span as exported: its attributes, its events' and its links' on the allow-list, no status message. */
export function redacted(span: ReadableSpan): ReadableSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    ended: span.ended,
    status: { code: span.status.code },
    attributes: allowedOnly(span.attributes),
    events: span.events.map((e) => ({ name: e.name, time: e.time, attributes: allowedOnly(e.attributes), droppedAttributesCount: 0 })),
    links: span.links.map((l) => ({ context: l.context, attributes: allowedOnly(l.attributes) })),
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** Hands `next` only what the allow-list lets through: the one place every exported span passes. */
export class AllowListProcessor implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Span, parent: Context): void {
    this.next.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    this.next.onEnd(redacted(span));
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}

/** The resource: the service's name, and the SDK's own description; nothing read from the host or the process. */
function resourceOf(serviceName: string): ReturnType<typeof resourceFromAttributes> {
  const attributes: Attributes = { 'service.name': serviceName, 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.name': 'opentelemetry' };
  return resourceFromAttributes(attributes);
}

/** `nested`: install the async context manager (see startTracing). */
export function registerTracing(settings: TracingSettings, nested: boolean): Tracing {
  const exporter = new OTLPTraceExporter({ url: settings.url });
  const provider = new NodeTracerProvider({
    sampler: samplerOf(settings),
    resource: resourceOf(settings.serviceName),
    spanProcessors: [new AllowListProcessor(new BatchSpanProcessor(exporter))],
  });
  // W3C trace context only (no baggage): the api puts it in the tokenizer calls' metadata, the tokenizer reads it.
  provider.register({ propagator: new W3CTraceContextPropagator(), ...(nested ? {} : { contextManager: null }) });
  let stopped: Promise<void> | undefined;
  return {
    shutdown: () =>
      (stopped ??= provider.shutdown().finally(() => {
        // Back to the no-op API (a test process may start another vault next).
        trace.disable();
        context.disable();
        propagation.disable();
      })),
  };
}
