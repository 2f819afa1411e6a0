// Prometheus metrics of the operator: reconcile counts, errors and durations, queue depth, informer restarts,
// leadership, xtoken rotations and vault calls. One registry per operator instance (tests run two in a process).
import client from 'prom-client';

export type OperatorMetrics = ReturnType<typeof createMetrics>;

export function createMetrics(opts: { defaultMetrics?: boolean } = {}) {
  const registry = new client.Registry();
  if (opts.defaultMetrics) client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    reconciles: new client.Counter({
      name: 'strongroom_operator_reconcile_total',
      help: 'Reconciles by kind and result (success, error).',
      labelNames: ['kind', 'result'] as const,
      registers,
    }),
    reconcileErrors: new client.Counter({
      name: 'strongroom_operator_reconcile_errors_total',
      help: 'Failed reconciles by kind and reason (the Ready condition reason).',
      labelNames: ['kind', 'reason'] as const,
      registers,
    }),
    reconcileDuration: new client.Histogram({
      name: 'strongroom_operator_reconcile_duration_seconds',
      help: 'Time to reconcile one resource, by kind.',
      labelNames: ['kind'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    queueDepth: new client.Gauge({
      name: 'strongroom_operator_queue_depth',
      help: 'Keys waiting in the work queue, by kind.',
      labelNames: ['kind'] as const,
      registers,
    }),
    informerRestarts: new client.Counter({
      name: 'strongroom_operator_informer_restarts_total',
      help: 'Times an informer stopped on an error and was started again, by resource.',
      labelNames: ['resource'] as const,
      registers,
    }),
    leader: new client.Gauge({
      name: 'strongroom_operator_leader',
      help: '1 while this instance holds the leader Lease and reconciles, else 0.',
      registers,
    }),
    xtokenIssued: new client.Counter({
      name: 'strongroom_operator_xtokens_issued_total',
      help: 'Role xtokens written to Secrets, by reason (new, rotation).',
      labelNames: ['reason'] as const,
      registers,
    }),
    vaultRequests: new client.Counter({
      name: 'strongroom_operator_vault_requests_total',
      help: 'Calls to the vault API by operation and HTTP status (0: unreachable).',
      labelNames: ['operation', 'status'] as const,
      registers,
    }),
  };
}
