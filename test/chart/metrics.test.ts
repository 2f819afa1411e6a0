// The api's /metrics names tenants in its labels: the chart serves it on a port of its own, which the Service,
// the ServiceMonitor and the NetworkPolicy's scrapers use, and never scrapes or opens the public port for it.
import { describe, expect, it } from 'vitest';
import { renderer, values } from './release.js';

const withMonitoring = values({ metrics: { serviceMonitor: { enabled: true } }, networkPolicy: { enabled: true, metricsScrapers: [{ podSelector: {} }] } });

describe('api metrics in the chart', () => {
  it('sets STRONGROOM_METRICS_PORT on the api container and names the port', () => {
    const spec = renderer.manifest('api-deployment.yaml', withMonitoring).spec.template.spec;
    const api = spec.containers.find((c: { name: string }) => c.name === 'api');
    const port = withMonitoring.api.metricsPort;
    expect(api.env).toContainEqual({ name: 'STRONGROOM_METRICS_PORT', value: String(port) });
    expect(api.ports).toContainEqual({ name: 'metrics', containerPort: port, protocol: 'TCP' });
    expect(port).not.toBe(withMonitoring.api.port);
  });

  it('scrapes the metrics ports, never the public one', () => {
    const monitor = renderer.manifest('servicemonitor-api.yaml', withMonitoring);
    expect(monitor.spec.endpoints.map((e: { port: string }) => e.port).sort()).toEqual(['metrics', 'tok-metrics']);
    const service = renderer.manifest('api-service.yaml', withMonitoring);
    expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain('metrics');
    const policy = renderer.manifest('networkpolicy-api.yaml', withMonitoring);
    const scrapers = policy.spec.ingress.find((r: { ports: { port: string }[] }) => r.ports.some((p) => p.port === 'tok-metrics'));
    expect(scrapers.ports.map((p: { port: string }) => p.port).sort()).toEqual(['metrics', 'tok-metrics']);
  });
});
