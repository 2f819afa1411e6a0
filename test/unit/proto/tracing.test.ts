// Tracing's settings come from the standard variables, and off means off: no endpoint, no SDK; the SDK is imported
// by one module only, which only an endpoint loads.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { startTracing, tracingSettings } from '../../../proto/tracing.js';
import { samplerOf } from '../../../proto/tracing-sdk.js';

const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

describe('tracing settings', () => {
  it('are off without an endpoint, or with the SDK disabled', async () => {
    expect(tracingSettings({}, 'strongroom-api')).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_SAMPLER: 'always_on' }, 'strongroom-api')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }, 'strongroom-api')).toBeUndefined();
    expect(await startTracing({}, 'strongroom-api', { nested: true })).toBeUndefined();
    expect(trace.getTracer('x').startSpan('y').isRecording()).toBe(false);
  });

  it('send to /v1/traces under the endpoint, or to the traces endpoint as given', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }, 'strongroom-api')).toEqual({
      url: 'http://c:4318/v1/traces',
      serviceName: 'strongroom-api',
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
    const both = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/traces', OTEL_SERVICE_NAME: 'vault' };
    expect(tracingSettings(both, 'strongroom-tokenizer')).toMatchObject({ url: 'http://t:4318/traces', serviceName: 'vault' });
  });

  it('take the standard sampler and its ratio, and refuse what they cannot read', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
    const settings = tracingSettings(env, 'strongroom-api')!;
    expect(settings).toMatchObject({ sampler: 'parentbased_traceidratio', ratio: 0.1 });
    expect(samplerOf(settings).toString()).toBe('ParentBased{root=TraceIdRatioBased{0.1}, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}');
    expect(() => tracingSettings({ ...env, OTEL_TRACES_SAMPLER: 'jaeger_remote' }, 'a')).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => tracingSettings({ ...env, OTEL_TRACES_SAMPLER_ARG: '2' }, 'a')).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => tracingSettings({ ...env, OTEL_TRACES_SAMPLER_ARG: 'ten' }, 'a')).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });

  it('leave the SDK to one module, which only an endpoint loads', () => {
    const importers = ['api', 'tokenizer', 'proto']
      .flatMap((dir) => readdirSync(join(root, dir), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name)))
      .filter((file) => /from '@opentelemetry\/(?!api')/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(importers).toEqual(['proto/tracing-sdk.ts']);
    expect(readFileSync(join(root, 'proto/tracing.ts'), 'utf8')).toMatch(/await import\('\.\/tracing-sdk\.js'\)/);
  });
});
