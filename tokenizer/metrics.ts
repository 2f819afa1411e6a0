// Prometheus metrics of the tokenizer, served on GET /metrics when STRONGROOM_TOKENIZER_METRICS_PORT is set.
import type { Server } from 'node:http';
import { serveMetrics as serveOn } from '../proto/metrics-server.js';
import client from 'prom-client';

// A registry of our own, not prom-client's global one: in-process tests may load this module more than once.
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

export const batchDuration = new client.Histogram({
  name: 'strongroom_tokenizer_batch_duration_seconds',
  help: 'Time to run one Run batch inside the tokenizer, by gRPC status.',
  labelNames: ['code'] as const,
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

export const batchItems = new client.Counter({
  name: 'strongroom_tokenizer_items_total',
  help: 'Items of successful batches, by kind (hash, seal, open, tokenize, detokenize).',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const batchesInFlight = new client.Gauge({
  name: 'strongroom_tokenizer_batches_in_flight',
  help: 'Run batches being worked on right now.',
  registers: [registry],
});

export const keyringReloads = new client.Counter({
  name: 'strongroom_tokenizer_keyring_reloads_total',
  help: 'Reads of a keyring.json another tokenizer changed, by what noticed it (periodic, unknown-version, info) and result (ok, failed).',
  labelNames: ['reason', 'result'] as const,
  registers: [registry],
});

export const keyringActiveVersion = new client.Gauge({
  name: 'strongroom_tokenizer_keyring_active_version',
  help: 'The master key version this tokenizer seals new keys under.',
  registers: [registry],
});

export const custodyUp = new client.Gauge({
  name: 'strongroom_tokenizer_custody_up',
  help: 'Whether the key custody answers (1) or not (0): for pkcs11, the last probe of the HSM key succeeded; static is always 1.',
  labelNames: ['custody'] as const,
  registers: [registry],
});

export const hsmCallDuration = new client.Histogram({
  name: 'strongroom_tokenizer_hsm_call_duration_seconds',
  help: 'Time of one PKCS#11 call (login, find, encrypt, decrypt), by call.',
  labelNames: ['call'] as const,
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

export const hsmErrors = new client.Counter({
  name: 'strongroom_tokenizer_hsm_errors_total',
  help: 'PKCS#11 calls that failed, by call and return value (CKR_…).',
  labelNames: ['call', 'rv'] as const,
  registers: [registry],
});

/** The tokenizer's metrics on a port of its own (STRONGROOM_TOKENIZER_METRICS_PORT). */
export function serveMetrics(port: number, host = '0.0.0.0'): Promise<Server> {
  return serveOn(registry, port, host);
}
