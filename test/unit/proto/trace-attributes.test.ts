// The allow-list is what every exported span passes (proto/tracing-sdk.ts): generated attribute maps, on spans,
// events and links, come out with the allowed keys only, and no status message comes out at all. Spans are made by
// the real SDK and caught by its in-memory exporter behind the allow-list processor.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ALLOWED_ATTRIBUTES, allowedOnly } from '../../../proto/trace-attributes.js';
import { AllowListProcessor } from '../../../proto/tracing-sdk.js';

const allowed = [...ALLOWED_ATTRIBUTES];
const key = fc.oneof(fc.constantFrom(...allowed), fc.string({ minLength: 1, maxLength: 24 }), fc.constantFrom('email', 'user.login', 'db.query.text', 'url.full', 'exception.message'));
const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 3 }));
const attributes = fc.dictionary(key, value, { maxKeys: 12 });

function keysOf(a: Attributes | undefined): string[] {
  return Object.keys(a ?? {});
}

describe('the span attribute allow-list', () => {
  it('keeps exactly the allowed keys of any map, with their values', () => {
    fc.assert(
      fc.property(attributes, (input) => {
        const out = allowedOnly(input);
        expect(keysOf(out).sort()).toEqual(keysOf(input).filter((k) => ALLOWED_ATTRIBUTES.has(k)).sort());
        for (const k of keysOf(out)) expect(out[k]).toEqual(input[k]);
      }),
    );
  });

  it('lets only allowed keys out of the SDK, on spans, events and links, and no status message', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new AllowListProcessor(new SimpleSpanProcessor(exporter))] });
    const tracer = provider.getTracer('test');
    fc.assert(
      fc.property(attributes, attributes, attributes, fc.string(), (onSpan, onEvent, later, message) => {
        exporter.reset();
        const linked = tracer.startSpan('linked');
        const span = tracer.startSpan('call', { attributes: onSpan, links: [{ context: linked.spanContext(), attributes: onEvent }] });
        span.setAttributes(later);
        span.addEvent('event', onEvent);
        span.recordException(new Error(message));
        span.setStatus({ code: SpanStatusCode.ERROR, message });
        span.end();
        const [out] = exporter.getFinishedSpans();
        for (const k of keysOf(out!.attributes)) expect(ALLOWED_ATTRIBUTES.has(k), k).toBe(true);
        expect(keysOf(out!.attributes).length).toBe(keysOf(allowedOnly({ ...onSpan, ...later })).length);
        for (const e of out!.events) for (const k of keysOf(e.attributes)) expect(ALLOWED_ATTRIBUTES.has(k), k).toBe(true);
        for (const l of out!.links) for (const k of keysOf(l.attributes)) expect(ALLOWED_ATTRIBUTES.has(k), k).toBe(true);
        expect(out!.status).toEqual({ code: SpanStatusCode.ERROR });
      }),
    );
  });

  it('is applied: without the processor the same span carries what was set', () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
    tracer.startSpan('call', { attributes: { email: 'a@example.com' } }).end();
    expect(exporter.getFinishedSpans()[0]!.attributes).toEqual({ email: 'a@example.com' });
  });
});
