// Composition root of the operator process: settings, the Kubernetes configuration (kubeconfig outside a cluster,
// the service account inside one), the operator, and a graceful stop on SIGTERM or SIGINT.
import pino from 'pino';
import { loadOperatorConfig, type OperatorConfig } from './config.js';
import { loadKube } from './kube.js';
import { startOperator } from './operator.js';
import { systemClock } from './runtime/clock.js';

/** Reconciles in flight get this long after SIGTERM; Kubernetes' default grace period is 30 s. */
const SHUTDOWN_GRACE_MS = 20_000;

async function main(): Promise<void> {
  let config: OperatorConfig;
  try {
    config = loadOperatorConfig();
  } catch (err) {
    process.stderr.write(`operator: ${(err as Error).message}\n`);
    process.exit(1);
  }
  // The vault's one log shape (proto/log.ts, which the operator may not import): `level` a word.
  const log = pino({ level: config.logLevel, base: { component: 'operator' }, formatters: { level: (label) => ({ level: label }) } });
  const kube = loadKube(config.kubeconfig);
  const leaseNamespace = config.leaderElection.namespace ?? kube.contextNamespace;
  const operator = await startOperator({
    kube,
    vault: { url: config.vaultUrl, publicUrl: config.publicUrl, rootToken: config.rootToken },
    watchNamespace: config.watchNamespace,
    leaderElection: config.leaderElection.enabled ? { ...config.leaderElection, namespace: leaseNamespace } : undefined,
    identity: config.leaderElection.identity,
    workers: config.workers,
    resyncMs: config.resyncMs,
    http: config.http,
    defaultMetrics: true,
    log,
    clock: systemClock,
  });
  log.info(
    {
      cluster: kube.config.getCurrentCluster()?.server,
      vault: config.vaultUrl,
      watchNamespace: config.watchNamespace ?? '(all)',
      lease: config.leaderElection.enabled ? `${leaseNamespace}/${config.leaderElection.name}` : '(no election)',
      identity: operator.identity,
      port: operator.httpPort,
    },
    'operator started',
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // A second signal means "now".
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, 'operator stopping');
    setTimeout(() => {
      log.warn('reconciles did not finish within the grace period');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    operator.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`operator failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
