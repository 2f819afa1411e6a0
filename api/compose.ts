// Composition root of the api: config, database, tokenizer client, services, HTTP server, sweeper, and the close
// that undoes them in order. The api process's entry point is main.ts; tests start the api in-process through here.
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { loadConfig, type Config } from './config.js';
import { Database } from './store/database.js';
import { KeysDatabase } from './store/keys-database.js';
import { TokenizerClient } from './tokenizer-client.js';
import { buildServices, type Services } from './vault/services.js';
import type { KeyringCheck, KeyringState } from './vault/keyring-check.js';
import { createApp } from './http/server.js';
import { registerPoolGauge, registry } from './metrics.js';
import { serveMetrics } from '../proto/metrics-server.js';
import { createLog, logFormat } from '../proto/log.js';
import { startTracing, type Tracing } from '../proto/tracing.js';

export async function startApi(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(env);
  const log = createLog('api', config.logLevel, logFormat(config.logFormat, process.stdout.isTTY));
  // Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or its traces variant) is set: then the SDK is loaded (proto/tracing.ts).
  const tracing = await startTracing(env, 'strongroom-api', { nested: true });
  const db = await Database.open({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolMax: config.dbPoolMax, log });
  const keysDb = config.keysDatabaseUrl ? await KeysDatabase.open(config.keysDatabaseUrl) : undefined;
  if (keysDb) db.useKeysDatabase(keysDb.pool);
  const tokenizer = new TokenizerClient(config.tokenizer.target, config.tokenizer.deadlineMs, (tenantId) => db.global().tenants.keySalt(tenantId));
  tokenizer.knowSalts(await db.global().tenants.keySalts());
  const services = buildServices(config, log, db, tokenizer);
  registerPoolGauge(await db.poolStats());
  // Tenants' own KEKs ride with every batch of theirs; a revoked one's calls fail closed from the first request.
  await services.tenantKeks.refresh();
  // A tokenizer not up yet is asked again by /readyz and by the first operation; a keyring that does not match is
  // logged and refused. The check also gives every tenant its own data key.
  await services.keyringCheck.check().catch(() => undefined);
  const generatedRoot = await services.credentials.ensureRoot(config.rootToken);
  showRootToken(generatedRoot);
  const server = await listen(config, services, Boolean(tracing));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ port, database: db.embedded ? 'embedded' : 'postgresql' }, 'api listening');
  // Metrics on a port of their own, when one is set; a port that cannot be bound stops the start like the main one.
  const metricsServer = config.metricsPort
    ? await serveMetrics(registry, config.metricsPort, config.host).catch((err: unknown) => {
        server.close();
        throw err;
      })
    : undefined;
  tellReady(env, config.host, port, rootTokenHint(generatedRoot, env), services.keyringCheck);
  startJobs(services);
  const close = closer({ server, metricsServer, services, tokenizer, db, keysDb, log, tracing });
  return { port, server, services, close };
}

/** A root token made on first start, shown once on the operator's terminal, never in the structured log. */
function showRootToken(generated: string | undefined): void {
  if (!generated) return;
  process.stderr.write(
    `\nStrongroom created a root token on first start. It is shown only this once:\n\n    ${generated}\n\n` +
      `Keep it safe, or set STRONGROOM_ROOT_TOKEN to choose your own.\n\n`,
  );
}

async function listen(config: Config, services: Services, traced: boolean): Promise<Server> {
  const app = createApp(services, { traced });
  const handle = app.callback();
  // Koa answers every error itself (its onerror): the promise it returns never rejects.
  const server = createServer((req, res) => void handle(req, res));
  // Deliberate limits on a slow client: its headers, its whole request (a file upload included), and how long an
  // idle connection is kept for the next request (longer than a load balancer's idle timeout, typically 60 s).
  server.headersTimeout = config.server.headersTimeoutMs;
  server.requestTimeout = config.server.requestTimeoutMs;
  server.keepAliveTimeout = config.server.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  return server;
}

/** What the export line says the root token is: the one made now, the variable that set it, or where to find it. */
function rootTokenHint(generated: string | undefined, env: NodeJS.ProcessEnv): string {
  if (generated) return generated;
  return env.STRONGROOM_ROOT_TOKEN ? '"$STRONGROOM_ROOT_TOKEN"' : '<the root token printed at first start>';
}

/**
 * Under the supervisor (which sets STRONGROOM_STARTED_AT): the lines a person starts from (the address, the pages,
 * and an `export` line for README's first calls), and a message the supervisor restarts by. Listening is not ready:
 * while the keyring cannot be checked (the tokenizer away, its HSM refusing the PIN) the banner says NOT ready and
 * why, without secrets, and "ready" follows once it is.
 */
function tellReady(env: NodeJS.ProcessEnv, host: string, port: number, token: string, keyringCheck: KeyringCheck): void {
  const startedAt = Number(env.STRONGROOM_STARTED_AT);
  if (!(startedAt > 0)) return;
  // A wildcard address is no place a browser can open: this machine's name for itself is.
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${port}`;
  const took = () => `${((Date.now() - startedAt) / 1000).toFixed(1)} s after start`;
  const banner = () =>
    process.stderr.write(
      `Strongroom is ready on ${url} (${took()})\n` +
        `  console  ${url}/console/\n  portal   ${url}/portal/\n  docs     ${url}/docs/\n` +
        `  export VAULT=${url} TOKEN=${token}\n`,
    );
  const notReady = notReadyReason(keyringCheck.state);
  if (!notReady) banner();
  else {
    process.stderr.write(`Strongroom is listening on ${url} but is NOT ready (${took()}): ${notReady}; GET /readyz says which part\n`);
    let told = false;
    const timer = setInterval(() => {
      void keyringCheck.check().then((state) => {
        if (notReadyReason(state) || told) return;
        told = true;
        clearInterval(timer);
        banner();
      }, () => undefined);
    }, 1000);
    timer.unref();
  }
  // The supervisor restarts an api that dies once it has listened.
  if (process.send) {
    process.send({ strongroom: 'listening' });
    process.channel?.unref();
  }
}

/** Why the vault cannot serve yet, in words free of secrets (the tokenizer's log names the custody's error), or undefined. */
function notReadyReason(state: KeyringState): string | undefined {
  if (state === 'ok' || state === 'migrating') return undefined;
  if (state === 'mismatch') return "the tokenizer's keyring does not fit this database";
  return "the tokenizer or its key custody does not answer (an HSM away or a PIN refused: see the tokenizer's log)";
}

function startJobs(services: Services): void {
  services.sweeper.start();
  services.dispatcher.start();
  services.auditExporter.start();
  services.tenantKeks.start();
  // Signed checkpoints of every tenant's audit head, and the periodic verification of whole chains.
  services.auditCheckpoints.start();
  services.auditVerifier.start();
  // Resumes a rotation left unfinished by a restart, and keeps looking for keys under older versions.
  services.rewrapper.start();
  services.rewrapper.kick();
  // Upgrades a database sealed before per-person keys, resuming where a restart left it (api/vault/jobs/legacy.ts).
  services.legacy.start();
  if (services.keyringCheck.state === 'migrating') services.legacy.kick();
}

/** What close undoes, in the order it undoes them. */
interface Running {
  server: Server;
  metricsServer: Server | undefined;
  services: Services;
  tokenizer: TokenizerClient;
  db: Database;
  keysDb: KeysDatabase | undefined;
  log: Logger;
  tracing: Tracing | undefined;
}

/** Closes once, however often it is called: stop accepting, let in-flight requests finish, then release the pools. */
function closer({ server, metricsServer, services, tokenizer, db, keysDb, log, tracing }: Running): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      });
      metricsServer?.close();
      await services.sweeper.stop();
      await services.dispatcher.stop();
      await services.auditExporter.stop();
      await services.leases?.close();
      await services.tenantKeks.stop();
      await services.auditVerifier.stop();
      await services.auditCheckpoints.stop();
      await services.rewrapper.stop();
      await services.legacy.stop();
      await services.statistics.stop();
      services.files.close();
      // The heads committed in the last moment, told to the tokenizer before its client closes.
      await services.audit.linker.reportAll();
      tokenizer.close();
      await db.close();
      await keysDb?.close();
      // The spans of the last requests are exported before the process ends.
      await tracing?.shutdown().catch(() => log.warn('traces could not all be exported at shutdown'));
      log.info('api stopped');
    })());
}
