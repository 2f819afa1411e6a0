// Prometheus metrics of the tokenizer, served on STRONGROOM_TOKENIZER_METRICS_PORT when set.
import { createServer, type Server } from 'node:http';
import client from 'prom-client';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

export const batchDuration = new client.Histogram({
  name: 'strongroom_tokenizer_batch_duration_seconds',
  help: 'Time to run one Run batch inside the tokenizer.',
  labelNames: ['code'] as const,
  buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
  registers: [registry],
});

export const batchItems = new client.Counter({
  name: 'strongroom_tokenizer_items_total',
  help: 'Items processed, by kind (hash, seal, open).',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export function serveMetrics(port: number, host = '0.0.0.0'): Server {
  return createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  }).listen(port, host);
}
