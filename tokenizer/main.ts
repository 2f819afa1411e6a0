// Entry point of the tokenizer process: read the settings, open the keyring, serve gRPC, stop cleanly on a signal.
import { loadTokenizerConfig, type TokenizerConfig } from './config.js';
import { startTokenizer } from './server.js';
import { createLog, logFormat } from '../proto/log.js';
import { startTracing, type Tracing } from '../proto/tracing.js';

/** In-flight batches get this long after SIGTERM; Kubernetes' default grace period is 30 s. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config: TokenizerConfig;
  try {
    config = loadTokenizerConfig();
  } catch (err) {
    // Before a logger exists, and meant for a human fixing the environment: one plain line.
    process.stderr.write(`tokenizer: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const log = createLog('tokenizer', config.logLevel, logFormat(config.logFormat, process.stdout.isTTY));
  let tokenizer;
  let tracing: Tracing | undefined;
  try {
    // Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or its traces variant) is set (proto/tracing.ts).
    tracing = await startTracing(process.env, 'strongroom-tokenizer', { nested: false });
    tokenizer = await startTokenizer(config, { log });
  } catch (err) {
    log.fatal({ err: { type: (err as Error).name } }, (err as Error).message);
    process.stderr.write(`tokenizer failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  }
  log.info(
    { socket: tokenizer.socketPath, tcp: config.tcpAddress, metricsPort: config.metricsPort, custody: config.custody, keyVersions: tokenizer.keyring?.versions.length },
    'tokenizer listening',
  );
  // Whoever reaches this port can open every record: there is no TLS and no caller authentication.
  if (config.tcpAddress) log.warn({ tcp: config.tcpAddress }, 'TCP listener has no TLS or authentication: keep it on a private network');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // A second signal means "now": the operator is not waiting for the grace period.
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, 'tokenizer stopping');
    tokenizer.close(SHUTDOWN_GRACE_MS).then(
      async () => {
        // The spans of the last calls are exported before the process ends.
        await tracing?.shutdown().catch(() => log.warn('traces could not all be exported at shutdown'));
        log.info('tokenizer stopped');
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Under the supervisor: once it is gone (killed with no chance to stop us, its IPC channel closes), stop as on
  // SIGTERM rather than live on, orphaned, holding the keyring and the socket.
  if (process.channel) {
    process.once('disconnect', () => {
      if (!stopping) stop('SIGTERM');
    });
  }
}

void main();
