// The tokenizer's gRPC server: binds its service (service.ts) and health on a private unix socket (and an
// optional TCP address), and closes them. What each call does lives in the service.
import type { Server as HttpServer } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import pino, { type Logger } from 'pino';
import { loadTokenizerPackage, channelOptions, TOKENIZER_SERVICE } from '../proto/loader.js';
import { HealthService } from './health.js';
import type { Keyring } from './keyring.js';
import { openKeyring } from './keyring-start.js';
import { TokenizerService, type ServiceOptions } from './service.js';
import { bind, prepareSocket } from './socket.js';
import { serveMetrics } from './metrics.js';
import type { TokenizerConfig } from './config.js';

export interface RunningTokenizer {
  socketPath: string;
  /** The bound TCP port when a TCP address was given (useful with port 0). */
  tcpPort: number | undefined;
  keyring: Keyring;
  /** Stops accepting calls, lets running ones finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

export async function startTokenizerServer(opts: ServiceOptions & { socketPath: string; tcpAddress?: string | undefined }): Promise<RunningTokenizer> {
  const { log } = opts;
  const service = new TokenizerService(opts);
  const pkg = loadTokenizerPackage();
  const server = new grpc.Server(channelOptions);
  const health = new HealthService([TOKENIZER_SERVICE]);
  server.addService(pkg.Tokenizer.service, service.handlers());
  server.addService(pkg.Health.service, health.implementation());

  let tcpPort: number | undefined;
  try {
    await prepareSocket(opts.socketPath);
    await bind(server, `unix:${opts.socketPath}`);
    if (opts.tcpAddress) tcpPort = await bind(server, opts.tcpAddress);
  } catch (err) {
    // Half a server (the socket bound, the TCP port taken) must not linger in a process that reports failure.
    server.forceShutdown();
    service.close();
    throw err;
  }

  let closing: Promise<void> | undefined;
  return {
    socketPath: opts.socketPath,
    tcpPort,
    keyring: service.keyring,
    close(graceMs = 5_000) {
      closing ??= new Promise<void>((resolve) => {
        health.stop();
        service.close();
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
  const log = opts.log ?? pino({ level: config.logLevel, base: { component: 'tokenizer' } });
  const keyring = await openKeyring(config, opts.notice);
  const running = await startTokenizerServer({
    keyring,
    socketPath: config.socketPath,
    tcpAddress: config.tcpAddress,
    log,
    rotateAfterSeals: config.rotateAfterSeals,
    keyringCheckSeconds: config.keyringCheckSeconds,
    recoveryRecipients: config.recoveryRecipients,
  });
  let metricsServer: HttpServer | undefined;
  try {
    metricsServer = config.metricsPort ? await serveMetrics(config.metricsPort) : undefined;
  } catch (err) {
    await running.close(0);
    throw err;
  }
  return {
    ...running,
    metricsServer,
    async close(graceMs) {
      metricsServer?.close();
      await running.close(graceMs);
    },
  };
}
