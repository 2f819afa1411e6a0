// The plain HTTP listener that serves a process's Prometheus metrics on a port of its own (never the public API
// port): GET /metrics, and 404 for anything else. Plain HTTP on purpose: metrics carry no secrets, and Prometheus
// scrapes the pod's port directly. Shared by the api and the tokenizer, each with its own registry.
import { createServer, type Server } from 'node:http';

export interface MetricsSource {
  contentType: string;
  metrics(): Promise<string>;
}

export function serveMetrics(registry: MetricsSource, port: number, host = '0.0.0.0'): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
