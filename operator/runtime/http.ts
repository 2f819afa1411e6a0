// The operator's own HTTP endpoints: /metrics (Prometheus), /healthz (the process is alive), /readyz (a leader whose
// informers have synced, or a standby waiting for the Lease: both can serve).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface Probes {
  registry: Registry;
  ready(): { ready: boolean; leader: boolean };
}

export async function startHttp(probes: Probes, port: number, host: string): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://operator').pathname;
    const json = (code: number, body: object) => res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'GET') return json(405, { status: 'error' });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      const r = probes.ready();
      return json(r.ready ? 200 : 503, { status: r.ready ? 'ok' : 'error', leader: r.leader });
    }
    if (path === '/metrics') {
      probes.registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': probes.registry.contentType }).end(text),
        () => json(500, { status: 'error' }),
      );
      return;
    }
    json(404, { status: 'error' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return { server, port: (server.address() as AddressInfo).port };
}
