// Traces in the chart: off unless `tracing.endpoint` is set; then the api and its tokenizer sidecar both get the
// OpenTelemetry variables, and the api's NetworkPolicy lets the pod reach the collector's port.
import { describe, expect, it } from 'vitest';
import { renderer, values } from './release.js';

type Container = { name: string; env: { name: string; value?: string }[] };

function containers(v: ReturnType<typeof values>): Container[] {
  const spec = renderer.manifest('api-deployment.yaml', v).spec.template.spec;
  return [...spec.containers, ...(spec.initContainers ?? [])].filter((c: Container) => c.name === 'api' || c.name === 'tokenizer');
}

describe('tracing in the chart', () => {
  it('sets no OTEL_ variable by default', () => {
    const all = containers(values({}));
    expect(all.map((c) => c.name).sort()).toEqual(['api', 'tokenizer']);
    for (const c of all) expect(c.env.filter((e) => e.name.startsWith('OTEL_'))).toEqual([]);
  });

  it('gives both containers the endpoint and the sampling, and opens the collector port', () => {
    const v = values({ tracing: { endpoint: 'http://otel-collector.observability:4318', peers: [{ namespaceSelector: {} }] }, networkPolicy: { enabled: true } });
    for (const c of containers(v)) {
      expect(c.env, c.name).toEqual(
        expect.arrayContaining([
          { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://otel-collector.observability:4318' },
          { name: 'OTEL_TRACES_SAMPLER', value: 'parentbased_traceidratio' },
          { name: 'OTEL_TRACES_SAMPLER_ARG', value: '0.1' },
        ]),
      );
    }
    const policy = renderer.manifest('networkpolicy-api.yaml', v);
    expect(policy.spec.egress).toContainEqual({ ports: [{ port: 4318, protocol: 'TCP' }], to: [{ namespaceSelector: {} }] });
  });
});
