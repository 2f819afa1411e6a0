// Traces, for both processes: off unless an OTLP endpoint is set, and then the SDK (proto/tracing-sdk.ts) is loaded
// and registered behind the API. Off, nothing of the SDK is imported and every span below is the API's no-op. The
// helpers make a child span only under a recording parent, so an unsampled request costs a lookup per step.
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

/** The standard samplers (OTEL_TRACES_SAMPLER); the remote ones (jaeger_remote, xray) are not supported. */
export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON). */
  url: string;
  serviceName: string;
  sampler: SamplerName;
  /** The ratio of traceidratio samplers, 0 to 1. */
  ratio: number;
}

/**
 * The settings the standard variables give, or undefined when no endpoint is set (tracing off). A sampler or
 * ratio that cannot be read stops the start: sampling other than the operator asked would go unnoticed.
 */
export function tracingSettings(env: NodeJS.ProcessEnv, defaultServiceName: string): TracingSettings | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || (!traces && !base)) return undefined;
  const url = traces || `${base!.replace(/\/+$/, '')}/v1/traces`;
  const sampler = (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.includes(sampler)) throw new Error(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}`);
  const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const ratio = arg && sampler.endsWith('traceidratio') ? Number(arg) : 1;
  if (!(ratio >= 0 && ratio <= 1)) throw new Error('OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1');
  return { url, serviceName: env.OTEL_SERVICE_NAME?.trim() || defaultServiceName, sampler, ratio };
}

export interface Tracing {
  /** Exports what is buffered and stops (graceful shutdown). */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing for this process when the environment asks for it; undefined (nothing loaded) otherwise. `nested`:
 * spans find their parent in the async context (the api: request, operation, calls), which the SDK keeps in an
 * AsyncLocalStorage; without it (the tokenizer, whose spans take their parent from the call's metadata) no context
 * manager is installed, and no promise of the process pays for one.
 */
export async function startTracing(env: NodeJS.ProcessEnv, defaultServiceName: string, { nested }: { nested: boolean }): Promise<Tracing | undefined> {
  const settings = tracingSettings(env, defaultServiceName);
  if (!settings) return undefined;
  const { registerTracing } = await import('./tracing-sdk.js');
  return registerTracing(settings, nested);
}

/** The instrumentation scope of every span of ours. */
export const SCOPE = 'strongroom';

/** Whether the current context has a span being recorded (a sampled request). */
export function recording(): boolean {
  return trace.getSpan(context.active())?.isRecording() === true;
}

/**
 * `work` in a child span of the current one, when that one is recorded; else `work` alone. `attributes` is called
 * only when recording. The span ends when `work` settles; a failure marks it an error, without its message.
 */
export async function inChildSpan<T>(name: string, attributes: () => Attributes, kind: SpanKind, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!recording()) return work(undefined);
  return trace.getTracer(SCOPE).startActiveSpan(name, { kind, attributes: attributes() }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Marks `span` an error, naming the error's class only (its message may quote the input). */
export function failed(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', err instanceof Error ? err.constructor.name : 'unknown');
}
