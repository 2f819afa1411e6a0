// The tokenizer's gRPC server: binds its service (service.ts) and health on a private unix socket (and an
// optional TCP address), and closes them. What each call does lives in the service.
import type { Server as HttpServer } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { loadTokenizerPackage, channelOptions, TOKENIZER_SERVICE } from '../proto/loader.js';
import { HealthService } from './health.js';
import type { Keyring } from './keyring.js';
import { openKeyring } from './keyring-start.js';
import { TokenizerService, type ServiceOptions } from './service.js';
import { ServiceSlot } from './service-slot.js';
import { CustodyWatch, probeEveryMs, unsealWithHsm } from './custody-watch.js';
import type { Custody } from './custody.js';
import { bind, prepareSocket } from './socket.js';
import { serveMetrics } from './metrics.js';
import type { TokenizerConfig } from './config.js';
import { createLog, logFormat } from '../proto/log.js';

export interface RunningTokenizer {
  socketPath: string;
  /** The bound TCP port when a TCP address was given (useful with port 0). */
  tcpPort: number | undefined;
  /** undefined while an HSM custody has not unsealed it yet. */
  readonly keyring: Keyring | undefined;
  /** Stops accepting calls, lets running ones finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

type ServeOptions = Pick<ServiceOptions, 'log'> & { socketPath: string; tcpAddress?: string | undefined };

/** Serves a keyring opened already (static custody, and tests). */
export async function startTokenizerServer(opts: ServiceOptions & ServeOptions): Promise<RunningTokenizer> {
  const slot = new ServiceSlot();
  slot.fill(new TokenizerService(opts));
  return serve(slot, opts);
}

/**
 * Binds the gRPC server over `slot`: health says SERVING while the slot holds a service that admits key calls,
 * NOT_SERVING otherwise (`health` is handed back for the custody to flip).
 */
async function serve(slot: ServiceSlot, opts: ServeOptions, onClose: () => void = () => {}): Promise<RunningTokenizer & { health: HealthService }> {
  const { log } = opts;
  const pkg = loadTokenizerPackage();
  const server = new grpc.Server(channelOptions);
  const health = new HealthService([TOKENIZER_SERVICE], slot.current ? 'SERVING' : 'NOT_SERVING');
  server.addService(pkg.Tokenizer.service, slot.table(pkg.Tokenizer.service));
  server.addService(pkg.Health.service, health.implementation());

  let tcpPort: number | undefined;
  try {
    await prepareSocket(opts.socketPath);
    await bind(server, `unix:${opts.socketPath}`);
    if (opts.tcpAddress) tcpPort = await bind(server, opts.tcpAddress);
  } catch (err) {
    // Half a server (the socket bound, the TCP port taken) must not linger in a process that reports failure.
    server.forceShutdown();
    slot.current?.close();
    onClose();
    throw err;
  }

  let closing: Promise<void> | undefined;
  return {
    socketPath: opts.socketPath,
    tcpPort,
    health,
    get keyring() {
      return slot.current?.keyring;
    },
    close(graceMs = 5_000) {
      closing ??= new Promise<void>((resolve) => {
        health.stop();
        slot.current?.close();
        onClose();
        const force = setTimeout(() => {
          log.warn({ graceMs }, 'calls still running at shutdown: cancelling them');
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return closing;
    },
  };
}

/** Loads the keyring for `config` and serves it; what main.ts runs, and what in-process tests start. */
export async function startTokenizer(
  config: TokenizerConfig,
  opts: { log?: Logger; notice?: (text: string) => void } = {},
): Promise<RunningTokenizer & { metricsServer: HttpServer | undefined }> {
  const log = opts.log ?? createLog('tokenizer', config.logLevel, logFormat(config.logFormat, process.stdout.isTTY));
  const serviceOptions = {
    socketPath: config.socketPath,
    tcpAddress: config.tcpAddress,
    log,
    rotateAfterSeals: config.rotateAfterSeals,
    keyringCheckSeconds: config.keyringCheckSeconds,
    recoveryRecipients: config.recoveryRecipients,
    keyCacheMs: config.keyCacheSeconds * 1000,
  };
  const running =
    config.custody === 'pkcs11'
      ? await serveInHsmCustody(config, serviceOptions, opts.notice)
      : await startTokenizerServer({ ...serviceOptions, keyring: await openKeyring(config, opts.notice) });
  let metricsServer: HttpServer | undefined;
  try {
    metricsServer = config.metricsPort ? await serveMetrics(config.metricsPort) : undefined;
  } catch (err) {
    await running.close(0);
    throw err;
  }
  return Object.assign(Object.create(running) as RunningTokenizer, {
    metricsServer,
    async close(graceMs?: number) {
      metricsServer?.close();
      await running.close(graceMs);
    },
  });
}

/**
 * `pkcs11` custody: serve at once (NOT_SERVING), unseal the keyring through the HSM in the background (auto-unseal,
 * tried again while the HSM is away), then watch the HSM and flip health and key calls with it.
 */
async function serveInHsmCustody(
  config: TokenizerConfig,
  serviceOptions: Omit<ServiceOptions, 'keyring'> & ServeOptions,
  notice: ((text: string) => void) | undefined,
): Promise<RunningTokenizer> {
  const { log } = serviceOptions;
  const slot = new ServiceSlot();
  let stopped = false;
  let watch: CustodyWatch | undefined;
  let custody: Custody | undefined;
  const running = await serve(slot, serviceOptions, () => {
    stopped = true;
    watch?.close();
    custody?.close();
  });
  const ttlMs = config.keyCacheSeconds * 1000;
  unsealWithHsm(config.pkcs11!, { dataDir: config.dataDir, notice }, log, { retryMs: probeEveryMs(ttlMs), stopped: () => stopped }).then(
    (unsealed) => {
      if (!unsealed || stopped) {
        unsealed?.custody.close();
        return;
      }
      custody = unsealed.custody;
      const service = new TokenizerService({ ...serviceOptions, keyring: unsealed.keyring, admit: () => watch?.admit(), custody: unsealed.custody });
      watch = new CustodyWatch(unsealed.custody, log, ttlMs, (serving) => {
        if (!serving) service.sealed();
        running.health.set('', serving ? 'SERVING' : 'NOT_SERVING');
        running.health.set(TOKENIZER_SERVICE, serving ? 'SERVING' : 'NOT_SERVING');
      });
      slot.fill(service);
      running.health.set('', 'SERVING');
      running.health.set(TOKENIZER_SERVICE, 'SERVING');
    },
    (err: unknown) => {
      // As with a wrong static key: a person must look. The process exits, as a failed start always has.
      log.fatal({ err: { type: (err as Error).name } }, (err as Error).message);
      process.stderr.write(`tokenizer failed to start: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
  return running;
}
