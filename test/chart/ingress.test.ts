// The chart's Ingress: each host serves the faces it names (the API, the console for staff, the portal for the
// public), every path to the api's Service, /v2 wherever a page calls it, TLS by secret or cert-manager annotation;
// never /metrics, /readyz or /healthz. Its values are checked by the schema.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { renderer, validate, values } from './release.js';

const API = ['/v1', '/docs', '/openapi.json', '/openapi.yml', '/openapi.yaml'];
const CONSOLE = ['/console', '/oidc'];
const PORTAL = ['/portal'];
const EVERY = ['/v2', '/static'];

interface Rule {
  host: string;
  http: { paths: { path: string; pathType: string; backend: { service: { name: string; port: { number: number } } } }[] };
}

describe('the ingress', () => {
  it('is off by default', () => {
    expect(renderer.manifest('ingress.yaml', values())).toBeUndefined();
  });

  it('routes each host to the faces it names, and nothing else, to the api service', () => {
    const parts = fc.subarray(['api', 'console', 'portal'] as const, { minLength: 1 });
    fc.assert(
      fc.property(fc.array(parts, { minLength: 1, maxLength: 3 }), (hosts) => {
        const v = values({
          ingress: { enabled: true, className: 'nginx', hosts: hosts.map((p, i) => ({ host: `h${i}.example.com`, parts: p })) },
        });
        expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
        const ingress = renderer.manifest('ingress.yaml', v);
        expect(ingress).toMatchObject({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', spec: { ingressClassName: 'nginx' } });
        const service = renderer.manifest('api-service.yaml', v);
        for (const [i, rule] of (ingress.spec.rules as Rule[]).entries()) {
          const want = [...EVERY, ...(hosts[i]!.includes('api') ? API : []), ...(hosts[i]!.includes('console') ? CONSOLE : []), ...(hosts[i]!.includes('portal') ? PORTAL : [])];
          const got = rule.http.paths.map((p) => p.path);
          expect(rule.host).toBe(`h${i}.example.com`);
          expect([...got].sort()).toEqual([...want].sort());
          expect(new Set(got).size).toBe(got.length);
          for (const p of rule.http.paths) {
            expect(p.backend.service).toEqual({ name: service.metadata.name, port: { number: service.spec.ports.find((x: { name: string }) => x.name === 'http').port } });
            expect(['Prefix', 'Exact']).toContain(p.pathType);
            expect(p.path).not.toMatch(/metrics|readyz|healthz/);
          }
        }
      }),
      { numRuns: 30 },
    );
  });

  it('takes TLS by secret and annotations for cert-manager', () => {
    const v = values({
      ingress: {
        enabled: true,
        annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
        hosts: [{ host: 'portal.example.com', parts: ['portal'] }],
        tls: [{ secretName: 'portal-tls', hosts: ['portal.example.com'] }],
      },
    });
    expect(validate(v)).toBe(true);
    const ingress = renderer.manifest('ingress.yaml', v);
    expect(ingress.metadata.annotations).toEqual({ 'cert-manager.io/cluster-issuer': 'letsencrypt' });
    expect(ingress.spec.tls).toEqual([{ secretName: 'portal-tls', hosts: ['portal.example.com'] }]);
    expect(ingress.spec.ingressClassName).toBeUndefined();
  });

  it('refuses values that would render a broken ingress', () => {
    const bad = [
      { enabled: true },
      { enabled: true, hosts: [] },
      { enabled: true, hosts: [{ host: 'a.example.com', parts: [] }] },
      { enabled: true, hosts: [{ host: 'a.example.com', parts: ['metrics'] }] },
      { enabled: true, hosts: [{ host: 'A_B', parts: ['api'] }] },
      { enabled: true, hosts: [{ host: 'a.example.com', parts: ['api'], paths: ['/'] }] },
      { enabled: true, hosts: [{ host: 'a.example.com', parts: ['api'] }], tls: [{ hosts: ['a.example.com'] }] },
    ];
    for (const ingress of bad) expect(validate(values({ ingress })), JSON.stringify(ingress)).toBe(false);
  });
});
