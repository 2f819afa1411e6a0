// The tokenizer's gRPC server: Run and KeyringInfo on a private unix socket (and optional TCP), plus health.
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Server as HttpServer } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import pino, { type Logger } from 'pino';
import { loadTokenizerPackage, channelOptions, TOKENIZER_SERVICE, type Batch__Output, type BatchResult, type RunRequest__Output, type TokenizerHandlers } from '../proto/loader.js';
import { Subkeys } from './subkeys.js';
import { runBatch, BadItemError, MAX_CHAIN, StoppedError } from './batch.js';
import { DEFAULT_ROTATE_AFTER, SealCounts } from './seal-counts.js';
import { HealthService } from './health.js';
import { NoRecoveryKeyError, RecoveryError, SharesError, type Keyring, type ReloadReason } from './keyring.js';
import { openKeyring } from './keyring-start.js';
import { fileStamp } from './keyring-file.js';
import { encryptShare, parseRecipients } from './keyring-init.js';
import { AuditKeys, chainLinks } from './audit-keys.js';
import { AuditCutError, AuditHeads } from './audit-heads.js';
import { linkChainItem } from './audit-chain.js';
import { macQueued, QueueRefusedError } from './audit-queue.js';
import { resealLegacy } from './legacy.js';
import { auditDigest } from '../proto/audit-checkpoint.js';
import { batchDuration, batchesInFlight, batchItems, keyringActiveVersion, keyringReloads, serveMetrics } from './metrics.js';
import type { TokenizerConfig } from './config.js';

export interface RunningTokenizer {
  socketPath: string;
  /** The bound TCP port when a TCP address was given (useful with port 0). */
  tcpPort: number | undefined;
  keyring: Keyring;
  /** Stops accepting calls, lets running ones finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

/** How often each tokenizer writes its seal counts (if they changed) and reads the other tokenizers'. */
const SEAL_SYNC_MS = 15_000;

function checkTenant(tenantId: number, salt: Buffer): void {
  if (!Number.isInteger(tenantId) || tenantId < 1) throw new BadItemError('tenant_id must be 1 or more');
  if (salt.length > 64) throw new BadItemError('tenant_salt is longer than 64 bytes');
}

function deadlineOf(call: Pick<grpc.ServerUnaryCall<unknown, unknown>, 'getDeadline'>): number {
  const d = call.getDeadline();
  return d instanceof Date ? d.getTime() : d;
}

/** A request the tokenizer understood and refuses (wrong recovery shares): FAILED_PRECONDITION. */
class RefusedError extends Error {
  override name = 'RefusedError';
}

function codeOf(err: unknown): grpc.status {
  if (err instanceof BadItemError) return grpc.status.INVALID_ARGUMENT;
  if (err instanceof RefusedError || err instanceof AuditCutError || err instanceof QueueRefusedError) return grpc.status.FAILED_PRECONDITION;
  if (err instanceof StoppedError) return err.why === 'cancelled' ? grpc.status.CANCELLED : grpc.status.DEADLINE_EXCEEDED;
  return grpc.status.INTERNAL;
}

/** Turns any failure into a status; only our own messages reach the caller, never a foreign error's. */
function toStatus(err: unknown, log: Logger, method: string): Partial<grpc.StatusObject> {
  const code = codeOf(err);
  if (code !== grpc.status.INTERNAL) return { code, details: (err as Error).message };
  // Name and code only: some Node errors quote the offending argument, which could be a plaintext.
  const e = err as NodeJS.ErrnoException;
  log.error({ method, err: { type: e?.name, code: e?.code } }, 'tokenizer call failed');
  return { code, details: 'internal error' };
}

/** Wraps an async handler once: every outcome, thrown or returned, answers the call exactly once. */
function unary<Req, Res>(log: Logger, method: string, handler: (call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    let answered = false;
    const answer = (err: Partial<grpc.StatusObject> | null, res?: Res) => {
      if (answered) return;
      answered = true;
      callback(err, res);
    };
    Promise.resolve()
      .then(() => handler(call))
      .then(
        (res) => answer(null, res),
        (err: unknown) => answer(toStatus(err, log, method)),
      )
      .catch((err: unknown) => log.error({ method, err: { type: (err as Error)?.name } }, 'answering a call failed'));
  };
}

function isLive(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ path: socketPath });
    const done = (live: boolean) => {
      s.destroy();
      resolve(live);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
    // No answer within a second is not "stale": refuse rather than steal a socket someone may be using.
    s.setTimeout(1000, () => done(true));
  });
}

/** Makes the socket path bindable: a private new directory, and a stale socket from a crash removed. */
async function prepareSocket(socketPath: string): Promise<void> {
  const dir = dirname(socketPath);
  // Only a directory we create is tightened: an existing one (a pod's shared emptyDir) is the operator's choice.
  if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700);
  let stat;
  try {
    stat = lstatSync(socketPath);
  } catch {
    return;
  }
  if (!stat.isSocket()) throw new Error(`${socketPath} exists and is not a socket: not replacing it`);
  if (await isLive(socketPath)) throw new Error(`another process is already serving on ${socketPath}`);
  unlinkSync(socketPath);
}

function bind(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
  );
}

export async function startTokenizerServer(opts: {
  keyring: Keyring;
  socketPath: string;
  tcpAddress?: string | undefined;
  log: Logger;
  rotateAfterSeals?: number;
  /** Seconds between checks of keyring.json for another tokenizer's change; 0 or absent: none. */
  keyringCheckSeconds?: number;
  /** STRONGROOM_RECOVERY_RECIPIENTS as given: the age recipients the new shares of a resplit are encrypted to. */
  recoveryRecipients?: string | undefined;
}): Promise<RunningTokenizer> {
  const { keyring, log } = opts;
  // Checked once; a bad list does not stop the tokenizer (it only matters to a resplit), but a resplit then refuses
  // rather than answer shares in clear that were meant to be encrypted.
  let recipients: string[] = [];
  let recipientsError: string | undefined;
  try {
    recipients = parseRecipients(opts.recoveryRecipients);
  } catch (err) {
    recipientsError = (err as Error).message;
    log.error(`${recipientsError}: SystemResplitRecoveryKey refuses until it is fixed`);
  }

  // Several tokenizers may share one keyring.json (replicas on one volume): another one's rotation, retirement or
  // resplit is read here. Changes are made under the file lock by Keyring itself; this only notices them.
  let failedStamp: string | undefined;
  const reload = (reason: ReloadReason): void => {
    try {
      const r = keyring.reload();
      if (!r.reloaded) return;
      keyringReloads.inc({ reason, result: 'ok' });
      keyringActiveVersion.set(keyring.active);
      failedStamp = undefined;
      log.info({ reason, active: keyring.active, versions: keyring.versions, added: r.added, retired: r.removed, keyring: keyring.id }, 'keyring reloaded: another tokenizer changed it');
    } catch (err) {
      keyringReloads.inc({ reason, result: 'failed' });
      // Once per state of the file, not every check: it stays failing until someone acts.
      const stamp = fileStamp(keyring.file);
      if (stamp === failedStamp) return;
      failedStamp = stamp;
      log.error({ reason, err: { type: (err as Error).name } }, `keyring.json changed but cannot be reloaded, serving the keys in memory: ${(err as Error).message}`);
    }
  };
  const keys = new Subkeys({
    key: (version) => keyring.key(version),
    // A version this process lacks may be another tokenizer's new one: reload, and never fail a call that it fixes.
    missing: (version) => {
      if (keyring.reloadWanted()) reload('unknown-version');
      return keyring.key(version);
    },
  });
  keyring.onForget = (version) => keys.forget(version);
  keyringActiveVersion.set(keyring.active);
  const checkTimer = opts.keyringCheckSeconds ? setInterval(() => reload('periodic'), opts.keyringCheckSeconds * 1000) : undefined;
  checkTimer?.unref();
  const audit = new AuditKeys(keyring, keys);
  const heads = new AuditHeads(keyring.file, log);
  // Published so that auditors can check checkpoints without asking the vault (also in KeyringInfo).
  log.info({ auditPublicKey: audit.publicKey, keyring: keyring.id }, 'audit checkpoints are signed with this Ed25519 key');
  const rotate = (): number => {
    const active = keyring.rotate();
    log.warn({ active, keyring: keyring.id }, 'master key rotated: new writes use the new version');
    return active;
  };
  const autoRotate = (from: number): void => {
    const active = keyring.rotateFrom(from);
    keyringActiveVersion.set(keyring.active);
    if (active === undefined) log.info({ from, active: keyring.active, keyring: keyring.id }, 'another tokenizer rotated first at the seal limit: taking its version');
    else log.warn({ active, keyring: keyring.id }, 'master key rotated: new writes use the new version');
  };
  const seals = new SealCounts({
    keyringFile: keyring.file,
    keyringId: keyring.id,
    rotateAfter: opts.rotateAfterSeals ?? DEFAULT_ROTATE_AFTER,
    log,
    rotate: autoRotate,
    active: () => keyring.active,
  });
  log.info({ instance: seals.instance, keyring: keyring.id }, 'counting seals in a file of this instance beside the keyring');
  // Writes this instance's counts and reads the others', so that the sum (metric, limit) follows idle replicas too.
  const sealTimer = setInterval(() => {
    try {
      seals.sync();
    } catch (err) {
      log.error({ err: { type: (err as Error).name } }, 'seal counts not synced');
    }
  }, SEAL_SYNC_MS);
  sealTimer.unref();
  const pkg = loadTokenizerPackage();
  const server = new grpc.Server(channelOptions);
  const health = new HealthService([TOKENIZER_SERVICE]);

  /** One Run, by either door: the batch, until `deadline` (ms since the epoch) or until `cancelled`. */
  const runOne = async (req: Batch__Output, deadline: number, cancelled: () => boolean): Promise<BatchResult> => {
    const started = performance.now();
    let code = 'OK';
    batchesInFlight.inc();
    try {
      const result = await runBatch(keys, keyring.active, req, { deadline, cancelled }, {
        countSeals: (v, n) => seals.add(v, n),
        chain: (tenantId, salt, item) => linkChainItem(audit, heads, tenantId, salt, item),
        queueMac: (tenantId, salt, items, sealed) => macQueued(audit.queueKey(tenantId, salt), tenantId, items, sealed, Math.floor(Date.now() / 1000)),
      });
      batchItems.inc({ kind: 'hash' }, req.hash.length);
      batchItems.inc({ kind: 'seal' }, req.seal.length);
      batchItems.inc({ kind: 'open' }, req.open.length);
      batchItems.inc({ kind: 'tokenize' }, req.tokenize.length);
      batchItems.inc({ kind: 'detokenize' }, req.detokenize.length);
      return result;
    } catch (err) {
      code = grpc.status[codeOf(err)];
      throw err;
    } finally {
      batchesInFlight.dec();
      batchDuration.observe({ code }, (performance.now() - started) / 1000);
    }
  };

  // Open RunStreams: a closing server ends each once its batches are answered (the api opens a new one).
  const streams = new Set<{ end: () => void }>();
  let closingStreams = false;

  const handlers: TokenizerHandlers = {
    Run: unary(log, 'Run', (call) => runOne(call.request, deadlineOf(call), () => call.cancelled)),
    RunStream: (call) => {
      // Each request answered once, by id; a batch's failure is its reply's, never the stream's. The stream ends
      // once the caller has ended it, or the server is closing, and every batch it carried is answered.
      const stream = { running: 0, ending: false, end: () => undefined as void };
      const endIfDone = () => {
        if (stream.ending && stream.running === 0 && call.writable) call.end();
      };
      stream.end = () => {
        stream.ending = true;
        endIfDone();
      };
      streams.add(stream);
      call.on('data', (req: RunRequest__Output) => {
        if (stream.ending) return;
        const deadline = Date.now() + Math.max(1, req.timeout_ms);
        stream.running++;
        Promise.resolve()
          .then(() => {
            if (!req.batch) throw new BadItemError('batch is missing');
            return runOne(req.batch, deadline, () => call.cancelled);
          })
          .then(
            (result) => ({ id: req.id, result, code: grpc.status.OK, details: '' }),
            (err: unknown) => {
              const status = toStatus(err, log, 'RunStream');
              return { id: req.id, code: status.code ?? grpc.status.INTERNAL, details: status.details ?? '' };
            },
          )
          .then((reply) => {
            if (!call.cancelled && call.writable) call.write(reply);
          })
          .catch((err: unknown) => log.error({ method: 'RunStream', err: { type: (err as Error)?.name } }, 'answering a call failed'))
          .finally(() => {
            stream.running--;
            endIfDone();
          });
      });
      call.on('end', () => stream.end());
      call.on('error', () => undefined);
      call.on('close', () => streams.delete(stream));
      if (closingStreams) stream.end();
    },
    KeyringInfo: unary(log, 'KeyringInfo', async () => {
      // The api's rewrapper asks this before every pass: it must see another replica's rotation at once.
      reload('info');
      return {
      versions: keyring.versions,
      active: keyring.active,
      seals: Object.fromEntries([...seals.all].map(([v, n]) => [v, String(n)])),
      keyring_id: keyring.id,
      audit_public_key: audit.publicKey,
      };
    }),
    ChainAudit: unary(log, 'ChainAudit', async (call) => {
      const { tenant_id: tenantId, tenant_salt: salt, previous, canonical } = call.request;
      const first = Number(call.request.first_seq);
      checkTenant(tenantId, salt);
      if (!Number.isSafeInteger(first) || first < 1) throw new BadItemError('first_seq must be 1 or more');
      if (canonical.length === 0 || canonical.length > MAX_CHAIN) throw new BadItemError(`canonical must hold 1 to ${MAX_CHAIN} texts`);
      if (previous.length !== 0 && previous.length !== 32) throw new BadItemError('previous must be empty or 32 bytes');
      return { links: chainLinks(audit.chainKey(tenantId, salt), previous, first, canonical) };
    }),
    SignCheckpoint: unary(log, 'SignCheckpoint', async (call) => {
      const { tenant_id: tenantId, tenant_salt: salt, link, previous, canonical, digest } = call.request;
      const seq = Number(call.request.seq);
      checkTenant(tenantId, salt);
      if (!Number.isSafeInteger(seq) || seq < 1) throw new BadItemError('seq must be 1 or more');
      if (!audit.isLink(tenantId, salt, previous, seq, canonical, link)) throw new RefusedError('the link is not this tenant\'s link of that event');
      if (!auditDigest(call.request.previous_digest, seq, canonical).equals(digest)) throw new RefusedError('the digest is not that event\'s digest');
      // A head signed is committed: the newest the tokenizer knows, and one older than that is a cut trail.
      heads.raise(tenantId, salt, seq, link);
      const time = Math.floor(Date.now() / 1000);
      const signature = audit.sign({ tenant: tenantId, seq, link, digest, time });
      return { seq: String(seq), link, digest, time: String(time), signature };
    }),
    AuditHighWater: unary(log, 'AuditHighWater', async (call) => {
      const { tenant_id: tenantId, tenant_salt: salt } = call.request;
      checkTenant(tenantId, salt);
      const known = heads.get(tenantId, salt);
      return { seq: String(known.seq), link: known.link };
    }),
    ResealLegacy: unary(log, 'ResealLegacy', async (call) => {
      const { tenantSeals, ...result } = resealLegacy(keys, keyring.active, call.request);
      if (tenantSeals) seals.add(keyring.active, tenantSeals);
      return result;
    }),
    Rotate: unary(log, 'Rotate', async () => ({ active: rotate() })),
    Retire: unary(log, 'Retire', async (call) => {
      const version = call.request.version;
      // Version 1 derives every lookup hash and FF1 token (blind-index.ts, formats.ts): it stays for good.
      if (version === 1) throw new RefusedError('version 1 derives lookup hashes and tokens and is never retired');
      try {
        keyring.retire(version);
      } catch (err) {
        if (err instanceof RecoveryError) throw new RefusedError(err.message);
        throw err;
      }
      log.warn({ version, keyring: keyring.id }, 'master key version retired');
      return { versions: keyring.versions };
    }),
    Rewrap: unary(log, 'Rewrap', async (call) => {
      try {
        const key = await keyring.rewrap(call.request.shares);
        log.warn('keyring re-sealed under a new wrapping key: set it as STRONGROOM_WRAPPING_KEY before the next restart');
        return { wrapping_key: key.toString('hex') };
      } catch (err) {
        if (err instanceof RecoveryError) throw new RefusedError(err.message);
        throw err;
      }
    }),
    Resplit: unary(log, 'Resplit', async (call) => {
      if (recipientsError) throw new RefusedError(`${recipientsError}: no shares issued`);
      let shares: string[];
      try {
        shares = await keyring.resplit(call.request.shares);
      } catch (err) {
        if (err instanceof NoRecoveryKeyError) throw new RefusedError(err.message);
        if (err instanceof SharesError || err instanceof RecoveryError) throw new BadItemError(`shares: ${err.message}`);
        throw err;
      }
      // The shares are never logged; only that a resplit happened.
      log.warn({ keyring: keyring.id, encrypted: recipients.length > 0 }, 'recovery key re-split: the old shares are void');
      if (!recipients.length) return { shares, encrypted_shares: [], recipients: [], keyring_id: keyring.id };
      const encrypted = await Promise.all(shares.map((sh, i) => encryptShare(recipients[i]!, sh, i + 1, keyring.id)));
      return { shares: [], encrypted_shares: encrypted, recipients, keyring_id: keyring.id };
    }),
  };
  server.addService(pkg.Tokenizer.service, handlers);
  server.addService(pkg.Health.service, health.implementation());

  let tcpPort: number | undefined;
  try {
    await prepareSocket(opts.socketPath);
    await bind(server, `unix:${opts.socketPath}`);
    if (opts.tcpAddress) tcpPort = await bind(server, opts.tcpAddress);
  } catch (err) {
    // Half a server (the socket bound, the TCP port taken) must not linger in a process that reports failure.
    server.forceShutdown();
    throw err;
  }

  let closing: Promise<void> | undefined;
  return {
    socketPath: opts.socketPath,
    tcpPort,
    keyring,
    close(graceMs = 5_000) {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(checkTimer);
        clearInterval(sealTimer);
        health.stop();
        heads.close();
        try {
          seals.close();
        } catch (err) {
          log.error({ err: { type: (err as Error).name } }, 'seal counts not saved');
        }
        closingStreams = true;
        for (const stream of streams) stream.end();
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
