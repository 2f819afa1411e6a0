// Prometheus metrics of the api, usable from every layer: request counts and durations, tokenizer latency,
// audit batches, database pool use. The Koa middleware that counts requests lives in http/metrics.ts.
import client from 'prom-client';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

export const httpRequests = new client.Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by method, route template and status (the official SDKs read this name).',
  labelNames: ['method', 'path', 'status'] as const,
  registers: [registry],
});

export const operationDuration = new client.Histogram({
  name: 'strongroom_api_operation_duration_seconds',
  help: 'Time to serve one v2 operation, by operation and outcome.',
  labelNames: ['operation', 'status'] as const,
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const tokenizerDuration = new client.Histogram({
  name: 'strongroom_api_tokenizer_call_duration_seconds',
  help: 'Latency of gRPC calls from the api to the tokenizer.',
  labelNames: ['method', 'code'] as const,
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
  registers: [registry],
});

export const refusalsAudited = new client.Counter({
  name: 'strongroom_audit_refusals_total',
  help: 'Calls refused for their credential (missing, unknown, expired or revoked token): recorded in the trail, or dropped past the budget',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const auditBatchSize = new client.Histogram({
  name: 'strongroom_api_audit_batch_events',
  help: 'Audit events committed per batched statement.',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
  registers: [registry],
});

export const auditQueueDepth = new client.Gauge({
  name: 'strongroom_audit_queue_depth',
  help: 'Events of committed writes not yet linked into the chain, as the last sweep found them, per tenant.',
  labelNames: ['tenant'],
  registers: [registry],
});

export const auditQueueRefused = new client.Counter({
  name: 'strongroom_audit_queue_refused_total',
  help: 'Queued audit events the tokenizer refused to link (their MAC does not hold: not queued by this vault), per tenant.',
  labelNames: ['tenant'],
  registers: [registry],
});

export const auditVerifiedSequence = new client.Gauge({
  name: 'strongroom_audit_verified_sequence',
  help: 'The last sequence number of the tenant\'s audit chain found intact by the last verification.',
  labelNames: ['tenant'] as const,
  registers: [registry],
});

export const auditVerifiedAt = new client.Gauge({
  name: 'strongroom_audit_last_verification_timestamp_seconds',
  help: 'When the tenant\'s audit chain was last verified (Unix time), intact or not.',
  labelNames: ['tenant'] as const,
  registers: [registry],
});

export const auditBroken = new client.Gauge({
  name: 'strongroom_audit_chain_broken',
  help: '1 when the last verification found the tenant\'s audit chain broken, else 0.',
  labelNames: ['tenant'] as const,
  registers: [registry],
});

export const auditCheckpoints = new client.Counter({
  name: 'strongroom_audit_checkpoints_total',
  help: 'Checkpoints of audit heads asked of the tokenizer, by outcome (signed, refused, failed).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const auditCheckpointWriteFailures = new client.Counter({
  name: 'strongroom_audit_checkpoint_write_failures_total',
  help: 'Signed checkpoints a target (dir, s3) failed to take; each is tried again at the next tick.',
  labelNames: ['target'] as const,
  registers: [registry],
});

export const loginFailures = new client.Counter({
  name: 'strongroom_login_failures_total',
  help: 'Failed UserLogin calls by reason (wrong-code, unknown-identity, locked-out, code-used, malformed); never who.',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const loginLockouts = new client.Counter({
  name: 'strongroom_login_lockouts_total',
  help: 'People locked out by their wrong codes (each lockout is also an event on the person\'s trail).',
  registers: [registry],
});

/** Reports pool use from a sampler registered by the composition root. */
export function registerPoolGauge(sample: () => { total: number; idle: number; waiting: number }) {
  // One pool per process; a second api in the same process (tests) takes the gauge over.
  registry.removeSingleMetric('strongroom_api_db_pool_connections');
  new client.Gauge({
    name: 'strongroom_api_db_pool_connections',
    help: 'Database pool connections by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = sample();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });
}

export const eventsDelivered = new client.Counter({
  name: 'strongroom_events_deliveries_total',
  help: 'Privacy event delivery attempts by sink kind and result (delivered, failed: retried later, dead: given up).',
  labelNames: ['kind', 'result'],
  registers: [registry],
});

export const eventsBacklog = new client.Gauge({
  name: 'strongroom_events_outbox_depth',
  help: 'Privacy events not yet fanned out plus deliveries pending, per tenant (measured by its dispatcher).',
  labelNames: ['tenant'],
  registers: [registry],
});

export const eventsBacklogAge = new client.Gauge({
  name: 'strongroom_events_outbox_age_seconds',
  help: 'Age of the oldest privacy event waiting to be fanned out or delivered, per tenant.',
  labelNames: ['tenant'],
  registers: [registry],
});

export const eventsDead = new client.Gauge({
  name: 'strongroom_events_dead_letters',
  help: 'Deliveries given up after STRONGROOM_EVENTS_RETRY_SECONDS (EventDeliveryList status dead; EventReplay sends them again), per tenant.',
  labelNames: ['tenant'],
  registers: [registry],
});

export const erasuresPending = new client.Gauge({
  name: 'strongroom_erasures_pending_confirmation',
  help: 'Confirmations of erasures still owed by their recipients, per tenant.',
  labelNames: ['tenant'],
  registers: [registry],
});

export const erasuresOverdue = new client.Gauge({
  name: 'strongroom_erasures_overdue',
  help: 'Confirmations of erasures owed past STRONGROOM_ERASURE_CONFIRM_SECONDS, per tenant.',
  labelNames: ['tenant'],
  registers: [registry],
});

export const auditSinkErrors = new client.Counter({
  name: 'strongroom_audit_sink_errors_total',
  help: 'Batches an audit sink failed to take (it catches up from its cursor).',
  labelNames: ['sink'],
  registers: [registry],
});

export const auditSinkLagEvents = new client.Gauge({
  name: 'strongroom_audit_sink_lag_events',
  help: 'Events of a tenant\'s trail an audit sink has not acknowledged yet.',
  labelNames: ['sink', 'tenant'],
  registers: [registry],
});

export const auditSinkLagSeconds = new client.Gauge({
  name: 'strongroom_audit_sink_lag_seconds',
  help: 'Age of the oldest event of a tenant\'s trail an audit sink has not acknowledged yet.',
  labelNames: ['sink', 'tenant'],
  registers: [registry],
});

export const auditTimestamps = new client.Counter({
  name: 'strongroom_audit_checkpoint_timestamps_total',
  help: 'RFC 3161 timestamp requests for signed checkpoints, by outcome (stamped, failed: retried).',
  labelNames: ['outcome'],
  registers: [registry],
});

export const auditUntimed = new client.Gauge({
  name: 'strongroom_audit_checkpoints_untimed',
  help: 'Signed checkpoints still waiting for their RFC 3161 timestamp, per tenant.',
  labelNames: ['tenant'],
  registers: [registry],
});

export const rewrapPending = new client.Gauge({
  name: 'strongroom_rewrap_pending_keys',
  help: 'Person keys of a tenant still wrapped under an older master version (or, for a tenant with its own KEK, not yet under it), as the rewrap counted them when it last held the tenant.',
  labelNames: ['tenant'] as const,
  registers: [registry],
});

export const rewrapLastProgress = new client.Gauge({
  name: 'strongroom_rewrap_last_progress_timestamp_seconds',
  help: 'When this process\'s rewrap last moved a key, found keys to move for a tenant that had none, or started (Unix time).',
  registers: [registry],
});

export const rewrapKeys = new client.Counter({
  name: 'strongroom_rewrap_keys_total',
  help: 'Person keys wrapped again under their target (the active master version, or the tenant\'s own KEK).',
  registers: [registry],
});

export const rewrapFailures = new client.Counter({
  name: 'strongroom_rewrap_failures_total',
  help: 'Rewrap passes that failed (logged as "key rewrap failed"); the next pass resumes where the last commit left off.',
  registers: [registry],
});
