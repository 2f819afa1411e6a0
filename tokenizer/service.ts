// The tokenizer's service: one method per RPC of proto/tokenizer.proto, over the state it owns (the keyring's
// subkeys, the data-key cache, seal counts, the audit keys and the newest audit heads). server.ts only binds it.
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Batch__Output, BatchResult, TokenizerHandlers } from '../proto/loader.js';
import { followingDigest } from '../proto/audit-checkpoint.js';
import { Subkeys } from './subkeys.js';
import { runBatch, BadItemError, MAX_CHAIN } from './batch.js';
import { DEFAULT_ROTATE_AFTER, SealCounts } from './seal-counts.js';
import { NoRecoveryKeyError, RecoveryError, SharesError, type Keyring } from './keyring.js';
import { encryptShare, parseRecipients } from './keyring-init.js';
import { AuditKeys, chainLinks } from './audit-keys.js';
import { AuditHeads } from './audit-heads.js';
import { linkChainItem } from './audit-chain.js';
import { macQueued } from './audit-queue.js';
import { resealLegacy } from './legacy.js';
import { KeyringWatch } from './keyring-watch.js';
import { DataKeyCache } from './data-key-cache.js';
import { RunStreams } from './run-stream.js';
import { checkTenant, codeOf, deadlineOf, RefusedError, unary } from './calls.js';
import { TenantKeys, type TenantKekRef } from './tenant-keys.js';
import type { Custody } from './custody.js';
import { probeEveryMs } from './custody-watch.js';
import { batchDuration, batchesInFlight, batchItems, keyringActiveVersion } from './metrics.js';

/** How often each tokenizer writes its seal counts (if they changed) and reads the other tokenizers'. */
const SEAL_SYNC_MS = 15_000;

export interface ServiceOptions {
  keyring: Keyring;
  log: Logger;
  rotateAfterSeals?: number | undefined;
  /** Seconds between checks of keyring.json for another tokenizer's change; 0 or absent: none. */
  keyringCheckSeconds?: number | undefined;
  /** STRONGROOM_RECOVERY_RECIPIENTS as given: the age recipients the new shares of a resplit are encrypted to. */
  recoveryRecipients?: string | undefined;
  /** How long unwrapped data keys stay cached (STRONGROOM_TOKENIZER_KEY_CACHE_SECONDS); default 10 minutes. */
  keyCacheMs?: number | undefined;
  /** Asked before every call that uses a key: throws CustodyUnavailableError while the key custody is away. */
  admit?: (() => void) | undefined;
  /** The HSM custody, which holds tenants' own KEK objects too; undefined under static custody (no tenant KEKs). */
  custody?: Custody | undefined;
}

type Request<M extends keyof TokenizerHandlers> = Parameters<TokenizerHandlers[M]>[0] extends { request: infer R } ? R : never;

export class TokenizerService {
  readonly keyring: Keyring;
  private readonly log: Logger;
  private readonly watch: KeyringWatch;
  private readonly keys: Subkeys;
  private readonly dataKeys: DataKeyCache;
  private readonly tenantKeys: TenantKeys;
  private readonly admit: () => void;
  private readonly audit: AuditKeys;
  private readonly heads: AuditHeads;
  private readonly seals: SealCounts;
  private readonly sealTimer: NodeJS.Timeout;
  private readonly streams: RunStreams;
  private recipients: string[] = [];
  private recipientsError: string | undefined;

  constructor(opts: ServiceOptions) {
    const { keyring, log } = opts;
    this.keyring = keyring;
    this.log = log;
    this.dataKeys = new DataKeyCache(opts.keyCacheMs ? { ttlMs: opts.keyCacheMs } : {});
    this.admit = opts.admit ?? (() => {});
    const ttlMs = opts.keyCacheMs ?? 10 * 60_000;
    this.tenantKeys = new TenantKeys(opts.custody, { ttlMs, log, keyringLabel: opts.custody?.describe.key, forgetDataKeys: (t) => this.dataKeys.forgetTenant(t) });
    this.tenantKeys.start(probeEveryMs(ttlMs));
    this.readRecipients(opts.recoveryRecipients);
    this.watch = new KeyringWatch(keyring, log, opts.keyringCheckSeconds);
    this.keys = new Subkeys({
      key: (version) => keyring.key(version),
      // A version this process lacks may be another tokenizer's new one: reload, and never fail a call that it fixes.
      missing: (version) => {
        if (keyring.reloadWanted()) this.watch.reload('unknown-version');
        return keyring.key(version);
      },
    });
    keyring.onForget = (version) => this.keys.forget(version);
    this.audit = new AuditKeys(keyring, this.keys);
    this.heads = new AuditHeads(keyring.file, log);
    // Published so that auditors can check checkpoints without asking the vault (also in KeyringInfo).
    log.info({ auditPublicKey: this.audit.publicKey, keyring: keyring.id }, 'audit checkpoints are signed with this Ed25519 key');
    this.seals = new SealCounts({
      keyringFile: keyring.file,
      keyringId: keyring.id,
      rotateAfter: opts.rotateAfterSeals ?? DEFAULT_ROTATE_AFTER,
      log,
      rotate: (from) => this.autoRotate(from),
      active: () => keyring.active,
    });
    log.info({ instance: this.seals.instance, keyring: keyring.id }, 'counting seals in a file of this instance beside the keyring');
    // Writes this instance's counts and reads the others', so that the sum (metric, limit) follows idle replicas too.
    this.sealTimer = setInterval(() => this.syncSeals(), SEAL_SYNC_MS);
    this.sealTimer.unref();
    this.streams = new RunStreams((req, deadline, cancelled) => this.run(req, deadline, cancelled), log);
  }

  /** The gRPC handlers, one per method. */
  handlers(): TokenizerHandlers {
    // Every method uses a key: each is admitted first (a custody away past its TTL answers UNAVAILABLE).
    const u: typeof unary = (log, method, handler) =>
      unary(log, method, async (call) => {
        this.admit();
        return handler(call);
      });
    const log = this.log;
    return {
      Run: u(log, 'Run', (call) => this.run(call.request, deadlineOf(call), () => call.cancelled)),
      RunStream: this.streams.handler,
      KeyringInfo: u(log, 'KeyringInfo', async () => this.keyringInfo()),
      ChainAudit: u(log, 'ChainAudit', async (call) => this.chainAudit(call.request)),
      SignCheckpoint: u(log, 'SignCheckpoint', async (call) => this.signCheckpoint(call.request)),
      AuditHighWater: u(log, 'AuditHighWater', async (call) => this.auditHighWater(call.request)),
      ResealLegacy: u(log, 'ResealLegacy', async (call) => this.resealLegacy(call.request)),
      Rotate: u(log, 'Rotate', async () => ({ active: this.rotate() })),
      Retire: u(log, 'Retire', async (call) => this.retire(call.request.version)),
      Rewrap: u(log, 'Rewrap', async (call) => this.rewrap(call.request.shares)),
      Resplit: u(log, 'Resplit', async (call) => this.resplit(call.request.shares)),
      MakeTenantKey: u(log, 'MakeTenantKey', async (call) => this.makeTenantKey(call.request)),
      RevokeTenantKek: u(log, 'RevokeTenantKek', async (call) => ({ destroyed: this.tenantKeys.revoke(kekRef(call.request)) })),
      TenantKekStatus: u(log, 'TenantKekStatus', async (call) => ({ states: this.tenantKeys.states(call.request.labels) })),
    };
  }

  /** One Run, by either door: the batch, until `deadline` (ms since the epoch) or until `cancelled`. */
  async run(req: Batch__Output, deadline: number, cancelled: () => boolean): Promise<BatchResult> {
    const started = performance.now();
    let code = 'OK';
    batchesInFlight.inc();
    try {
      this.admit();
      const result = await runBatch(this.keys, this.keyring.active, req, { deadline, cancelled }, {
        countSeals: (v, n) => this.seals.add(v, n),
        chain: (tenantId, salt, item) => linkChainItem(this.audit, this.heads, tenantId, salt, item),
        queueMac: (tenantId, salt, items, sealed) => macQueued(this.audit.queueKey(tenantId, salt), tenantId, items, sealed, Math.floor(Date.now() / 1000)),
        dataKeyCache: this.dataKeys,
        tenantKey: (ref) => this.tenantKeys.keyOf(ref),
      });
      for (const kind of ['hash', 'seal', 'open', 'tokenize', 'detokenize'] as const) batchItems.inc({ kind }, req[kind].length);
      return result;
    } catch (err) {
      code = grpc.status[codeOf(err)];
      throw err;
    } finally {
      batchesInFlight.dec();
      batchDuration.observe({ code }, (performance.now() - started) / 1000);
    }
  }

  keyringInfo() {
    // The api's rewrapper asks this before every pass: it must see another replica's rotation at once.
    this.watch.reload('info');
    const { keyring } = this;
    return {
      versions: keyring.versions,
      active: keyring.active,
      seals: Object.fromEntries([...this.seals.all].map(([v, n]) => [v, String(n)])),
      keyring_id: keyring.id,
      audit_public_key: this.audit.publicKey,
    };
  }

  chainAudit(req: Request<'ChainAudit'>) {
    const { tenant_id: tenantId, tenant_salt: salt, previous, canonical } = req;
    const first = Number(req.first_seq);
    checkTenant(tenantId, salt);
    if (!Number.isSafeInteger(first) || first < 1) throw new BadItemError('first_seq must be 1 or more');
    if (canonical.length === 0 || canonical.length > MAX_CHAIN) throw new BadItemError(`canonical must hold 1 to ${MAX_CHAIN} texts`);
    if (previous.length !== 0 && previous.length !== 32) throw new BadItemError('previous must be empty or 32 bytes');
    return { links: chainLinks(this.audit.chainKey(tenantId, salt), previous, first, canonical) };
  }

  signCheckpoint(req: Request<'SignCheckpoint'>) {
    const { tenant_id: tenantId, tenant_salt: salt, link, previous, canonical, digest } = req;
    const seq = Number(req.seq);
    checkTenant(tenantId, salt);
    if (!Number.isSafeInteger(seq) || seq < 1) throw new BadItemError('seq must be 1 or more');
    if (!this.audit.isLink(tenantId, salt, { previous, seq, canonical, link })) throw new RefusedError('the link is not this tenant\'s link of that event');
    if (!followingDigest(req.previous_digest, seq, canonical, digest).equals(digest)) throw new RefusedError('the digest is not that event\'s digest');
    // A head signed is committed: the newest the tokenizer knows, and one older than that is a cut trail.
    this.heads.raise(tenantId, salt, seq, link);
    const time = Math.floor(Date.now() / 1000);
    const signature = this.audit.sign({ tenant: tenantId, seq, link, digest, time });
    return { seq: String(seq), link, digest, time: String(time), signature };
  }

  auditHighWater(req: Request<'AuditHighWater'>) {
    const { tenant_id: tenantId, tenant_salt: salt } = req;
    checkTenant(tenantId, salt);
    const known = this.heads.get(tenantId, salt);
    return { seq: String(known.seq), link: known.link };
  }

  resealLegacy(req: Request<'ResealLegacy'>) {
    const { tenantSeals, ...result } = resealLegacy(this.keys, this.keyring.active, req);
    if (tenantSeals) this.seals.add(this.keyring.active, tenantSeals);
    return result;
  }

  /** A tenant key wrapped by the tenant's KEK object: new, or (from_label given) the tenant's own moved to it. */
  makeTenantKey(req: Request<'MakeTenantKey'>) {
    checkTenant(req.tenant_id, req.tenant_salt);
    if (!req.kek_label || req.kek_label.length > 128) throw new BadItemError('kek: a key object label of 1 to 128 characters is needed');
    const from = req.from_label ? { tenantId: req.tenant_id, salt: req.tenant_salt, label: req.from_label, wrapped: req.from_wrapped } : undefined;
    const wrapped = this.tenantKeys.make(req.tenant_id, req.tenant_salt, req.kek_label, from);
    this.log.info({ tenant: req.tenant_id, kek: req.kek_label, moved: Boolean(from) }, 'tenant key wrapped by the tenant\'s own key-encryption key');
    return { kek_wrapped: wrapped };
  }

  rotate(): number {
    const active = this.keyring.rotate();
    this.log.warn({ active, keyring: this.keyring.id }, 'master key rotated: new writes use the new version');
    return active;
  }

  retire(version: number) {
    // Version 1 derives every lookup hash and FF1 token (blind-index.ts, formats.ts): it stays for good.
    if (version === 1) throw new RefusedError('version 1 derives lookup hashes and tokens and is never retired');
    try {
      this.keyring.retire(version);
    } catch (err) {
      if (err instanceof RecoveryError) throw new RefusedError(err.message);
      throw err;
    }
    this.log.warn({ version, keyring: this.keyring.id }, 'master key version retired');
    return { versions: this.keyring.versions };
  }

  async rewrap(shares: string[]) {
    try {
      const key = await this.keyring.rewrap(shares);
      this.log.warn('keyring re-sealed under a new wrapping key: set it as STRONGROOM_WRAPPING_KEY before the next restart');
      return { wrapping_key: key.toString('hex') };
    } catch (err) {
      if (err instanceof RecoveryError) throw new RefusedError(err.message);
      throw err;
    }
  }

  async resplit(given: string[]) {
    const { keyring, recipients } = this;
    if (this.recipientsError) throw new RefusedError(`${this.recipientsError}: no shares issued`);
    let shares: string[];
    try {
      shares = await keyring.resplit(given);
    } catch (err) {
      if (err instanceof NoRecoveryKeyError) throw new RefusedError(err.message);
      if (err instanceof SharesError || err instanceof RecoveryError) throw new BadItemError(`shares: ${err.message}`);
      throw err;
    }
    // The shares are never logged; only that a resplit happened.
    this.log.warn({ keyring: keyring.id, encrypted: recipients.length > 0 }, 'recovery key re-split: the old shares are void');
    if (!recipients.length) return { shares, encrypted_shares: [], recipients: [], keyring_id: keyring.id };
    const encrypted = await Promise.all(shares.map((sh, i) => encryptShare(recipients[i]!, sh, i + 1, keyring.id)));
    return { shares: [], encrypted_shares: encrypted, recipients, keyring_id: keyring.id };
  }

  /** The key custody is away past its TTL: the unwrapped data keys go now, not at their TTL. */
  sealed(): void {
    this.dataKeys.clear();
    this.tenantKeys.close();
  }

  /** Ends the streams once answered, stops the timers, saves the counts and heads, and zeroes the cached data keys. */
  close(): void {
    this.streams.endAll();
    this.watch.close();
    clearInterval(this.sealTimer);
    this.heads.close();
    try {
      this.seals.close();
    } catch (err) {
      this.log.error({ err: { type: (err as Error).name } }, 'seal counts not saved');
    }
    this.dataKeys.clear();
    this.tenantKeys.close();
  }

  /**
   * Checked once; a bad list does not stop the tokenizer (it only matters to a resplit), but a resplit then
   * refuses rather than answer shares in clear that were meant to be encrypted.
   */
  private readRecipients(given: string | undefined): void {
    try {
      this.recipients = parseRecipients(given);
    } catch (err) {
      this.recipientsError = (err as Error).message;
      this.log.error(`${this.recipientsError}: SystemResplitRecoveryKey refuses until it is fixed`);
    }
  }

  private autoRotate(from: number): void {
    const { keyring, log } = this;
    const active = keyring.rotateFrom(from);
    keyringActiveVersion.set(keyring.active);
    if (active === undefined) log.info({ from, active: keyring.active, keyring: keyring.id }, 'another tokenizer rotated first at the seal limit: taking its version');
    else log.warn({ active, keyring: keyring.id }, 'master key rotated: new writes use the new version');
  }

  private syncSeals(): void {
    try {
      this.seals.sync();
    } catch (err) {
      this.log.error({ err: { type: (err as Error).name } }, 'seal counts not synced');
    }
  }
}

function kekRef(req: { tenant_id: number; tenant_salt: Buffer; kek_label: string; kek_wrapped: Buffer }): TenantKekRef {
  checkTenant(req.tenant_id, req.tenant_salt);
  if (!req.kek_label) throw new BadItemError('kek: a key object label is needed');
  return { tenantId: req.tenant_id, salt: req.tenant_salt, label: req.kek_label, wrapped: req.kek_wrapped };
}
