// The api's only door to the tokenizer: batched gRPC calls with deadlines, wait-for-ready and latency metrics.
// Small calls made in the same turn of the event loop for the same tenant travel together in one Run.
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import {
  type ResealLegacyResponse__Output,
  loadTokenizerPackage,
  channelOptions,
  type Batch,
  type BatchResult__Output,
  type ChainAuditResponse__Output,
  type SignCheckpointResponse__Output,
  type AuditHighWaterResponse__Output,
  type KeyringInfoResponse__Output,
  type RewrapResponse__Output,
  type ResplitResponse__Output,
  type RotateResponse__Output,
  type RetireResponse__Output,
  type TokenizerGrpcClient,
} from '../proto/loader.js';
import { tokenizerDuration } from './metrics.js';
import { callMetadata, inTokenizerSpan, traceparent } from './tokenizer-trace.js';
import { recording } from '../proto/tracing.js';
import { Coalescer } from './coalesce.js';
import { RunStreamChannel } from './tokenizer-stream.js';
import { failure, sizeOf, toBatch, TokenizerRejectedError, type AuditRun, type PersonKey, type TenantKekRef, type TokenizerBatch, type TokenizerResult } from './tokenizer-batch.js';
import { TenantKeyUnavailableError } from './errors.js';
import type { MakeTenantKeyResponse__Output, RevokeTenantKekResponse__Output, TenantKekStatusResponse__Output } from '../proto/loader.js';

export { TokenizerRejectedError, type AuditRun, type PersonKey, type TenantKekRef, type TokenizerBatch, type TokenizerResult } from './tokenizer-batch.js';

export type { IndexKind, TokenFormat } from '../proto/loader.js';

type Method =
  | 'Run' | 'KeyringInfo' | 'Rewrap' | 'Resplit' | 'Rotate' | 'Retire' | 'ChainAudit' | 'SignCheckpoint' | 'ResealLegacy' | 'AuditHighWater'
  | 'MakeTenantKey' | 'RevokeTenantKek' | 'TenantKekStatus';
/** One call on the generated client, given the metadata, options and callback `call` adds. */
type Send<Res> = (meta: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<Res>) => void;

// Calls up to this size are merged with their neighbours; bulk calls are already one batch and go alone.
const COALESCE_MAX_ITEMS = 16;
const COALESCE_MAX_BYTES = 256 * 1024;

type Outcome = { ok: true; value: TokenizerResult } | { ok: false; error: unknown };

export class TokenizerClient {
  private readonly client: TokenizerGrpcClient;
  private readonly streams: RunStreamChannel;
  // Two calls per tenant in flight keep the tokenizer busy; everything that arrives meanwhile rides the next one.
  private readonly merged = new Coalescer<TokenizerBatch, Outcome>((key, batches) => this.runMerged(Number(key), batches), {
    maxInFlight: 2,
  });

  constructor(
    target: string,
    private readonly deadlineMs: number,
    /**
     * Where a tenant's key salt comes from (the composition root reads it from the tenants table): null for a
     * tenant made before salts, undefined for no such tenant. A tenant's salt never changes and ids are never
     * reused, so an existing tenant's answer is kept for the life of the process.
     */
    private readonly saltSource?: (tenantId: number) => Promise<Buffer | null | undefined>,
  ) {
    const { Tokenizer } = loadTokenizerPackage();
    // No retry policy: grpc-js buffers every message of a retryable call, which doubles the round trip
    // (0.28 ms → 0.62 ms measured). waitForReady rides out a tokenizer restart instead, bounded by the deadline.
    this.client = new Tokenizer(target, grpc.credentials.createInsecure(), {
      ...channelOptions,
      'grpc.enable_retries': 0,
    });
    this.streams = new RunStreamChannel(this.client, deadlineMs);
  }

  /** One call for the whole batch; results come back in request order. */
  async run(tenantId: number, batch: TokenizerBatch): Promise<TokenizerResult> {
    const { items, bytes } = sizeOf(batch);
    if (items > COALESCE_MAX_ITEMS || bytes > COALESCE_MAX_BYTES) return this.runOne(tenantId, batch);
    // A traced request's batch goes alone on the stream, its span's context in its message (tokenizer-trace.ts).
    if (recording()) return inTokenizerSpan('Run', () => ({ items, bytes }), async () => this.streams.run(await this.request(tenantId, batch), traceparent()));
    const outcome = await this.merged.add(String(tenantId), batch);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /** Whether no call of the tenant's is out or waiting (a lone caller: nobody else's work to ride with). */
  idle(tenantId: number): boolean {
    return this.merged.idle(String(tenantId));
  }

  /** Several callers' batches as one Run, each caller's results sliced back out of the merged answer. */
  private async runMerged(tenantId: number, batches: TokenizerBatch[]): Promise<Outcome[]> {
    if (batches.length === 1) {
      return [await this.runSmall(tenantId, batches[0]!).then((value): Outcome => ({ ok: true, value }), (error: unknown): Outcome => ({ ok: false, error }))];
    }
    const merged: Required<TokenizerBatch> = { hash: [], seal: [], open: [], tokenize: [], detokenize: [], newKeys: [], rewrapKeys: [], chain: [], queueMac: [] };
    for (const b of batches) {
      if (b.queueMac) merged.queueMac.push(...b.queueMac);
      if (b.chain) merged.chain.push(...b.chain);
      if (b.newKeys) merged.newKeys.push(...b.newKeys);
      if (b.rewrapKeys) merged.rewrapKeys.push(...b.rewrapKeys);
      if (b.hash) merged.hash.push(...b.hash);
      if (b.seal) merged.seal.push(...b.seal);
      if (b.open) merged.open.push(...b.open);
      if (b.tokenize) merged.tokenize.push(...b.tokenize);
      if (b.detokenize) merged.detokenize.push(...b.detokenize);
    }
    let result: TokenizerResult;
    try {
      result = await this.runSmall(tenantId, merged);
    } catch (error) {
      // One caller's bad item must not fail its neighbours: on a refusal each batch is asked on its own.
      if (error instanceof TokenizerRejectedError) return this.runEach(tenantId, batches);
      return batches.map(() => ({ ok: false, error }));
    }
    const at = { hash: 0, sealed: 0, opened: 0, tokens: 0, detokenized: 0, wrapped: 0, rewrapped: 0, chained: 0, macs: 0 };
    return batches.map((b) => {
      const value: TokenizerResult = {
        hash: result.hash.slice(at.hash, (at.hash += b.hash?.length ?? 0)),
        sealed: result.sealed.slice(at.sealed, (at.sealed += b.seal?.length ?? 0)),
        opened: result.opened.slice(at.opened, (at.opened += b.open?.length ?? 0)),
        tokens: result.tokens.slice(at.tokens, (at.tokens += b.tokenize?.length ?? 0)),
        detokenized: result.detokenized.slice(at.detokenized, (at.detokenized += b.detokenize?.length ?? 0)),
        wrapped_keys: result.wrapped_keys.slice(at.wrapped, (at.wrapped += b.newKeys?.length ?? 0)),
        rewrapped_keys: result.rewrapped_keys.slice(at.rewrapped, (at.rewrapped += b.rewrapKeys?.length ?? 0)),
        chained: result.chained.slice(at.chained, (at.chained += b.chain?.length ?? 0)),
        queue_macs: result.queue_macs.slice(at.macs, (at.macs += b.queueMac?.length ?? 0)),
      };
      return { ok: true, value };
    });
  }

  private runEach(tenantId: number, batches: TokenizerBatch[]): Promise<Outcome[]> {
    return Promise.all(
      batches.map((b) => this.runSmall(tenantId, b).then((value): Outcome => ({ ok: true, value }), (error: unknown): Outcome => ({ ok: false, error }))),
    );
  }

  private readonly salts = new Map<number, Buffer>();

  /** Salts read in bulk (at start): calls for these tenants never need a lookup. */
  knowSalts(salts: Map<number, Buffer | null>): void {
    for (const [id, salt] of salts) this.salts.set(id, salt ?? Buffer.alloc(0));
  }

  /**
   * Learns the tenant's salt now, outside any transaction: the embedded database serves one connection at a
   * time, and a lookup on another connection from inside a transaction would wait forever.
   */
  async prepare(tenantId: number): Promise<void> {
    await this.saltOf(tenantId);
  }

  private async saltOf(tenantId: number): Promise<Buffer> {
    const known = this.salts.get(tenantId);
    if (known) return known;
    const salt = await this.saltSource?.(tenantId);
    if (salt === undefined) return Buffer.alloc(0);
    const value = salt ?? Buffer.alloc(0);
    this.salts.set(tenantId, value);
    return value;
  }

  private async request(tenantId: number, batch: TokenizerBatch): Promise<Batch> {
    const kek = this.keks.get(tenantId);
    // Revoked: nothing of the tenant is sent to be opened (the tokenizer would refuse too: the object is destroyed).
    if (kek?.revoked) throw new TenantKeyUnavailableError();
    return toBatch(tenantId, await this.saltOf(tenantId), batch, kek);
  }

  /**
   * Tenants' own KEKs as batches carry them. Set by the composition root from the tenants table (at start and every
   * few seconds, outside any transaction), and at once by the operations of this replica that change one.
   */
  private readonly keks = new Map<number, TenantKekRef>();

  knowKeks(keks: Map<number, TenantKekRef>): void {
    this.keks.clear();
    for (const [id, kek] of keks) this.keks.set(id, kek);
  }

  setKek(tenantId: number, kek: TenantKekRef | undefined): void {
    if (kek) this.keks.set(tenantId, kek);
    else this.keks.delete(tenantId);
  }

  kekOf(tenantId: number): TenantKekRef | undefined {
    return this.keks.get(tenantId);
  }

  /** A tenant key wrapped by the KEK object `label` (new, or the tenant's current one moved to it when `from` is given). */
  async makeTenantKey(tenantId: number, label: string, from?: TenantKekRef): Promise<Buffer> {
    const req = { tenant_id: tenantId, tenant_salt: await this.saltOf(tenantId), kek_label: label, from_label: from?.label ?? '', from_wrapped: from?.wrapped ?? Buffer.alloc(0) };
    const res = await this.call<MakeTenantKeyResponse__Output>('MakeTenantKey', (meta, options, callback) => this.client.MakeTenantKey(req, meta, options, callback));
    return res.kek_wrapped;
  }

  /** Destroys the tenant's KEK object in the HSM; false when it was gone already. */
  async revokeTenantKek(tenantId: number, kek: TenantKekRef): Promise<boolean> {
    const req = { tenant_id: tenantId, tenant_salt: await this.saltOf(tenantId), kek_label: kek.label, kek_wrapped: kek.wrapped };
    const res = await this.call<RevokeTenantKekResponse__Output>('RevokeTenantKek', (meta, options, callback) => this.client.RevokeTenantKek(req, meta, options, callback));
    return res.destroyed;
  }

  /** "up", "missing" or "unavailable" for each KEK object. */
  async tenantKekStatus(labels: string[]): Promise<string[]> {
    if (!labels.length) return [];
    const res = await this.call<TenantKekStatusResponse__Output>('TenantKekStatus', (meta, options, callback) => this.client.TenantKekStatus({ labels }, meta, options, callback));
    return res.states;
  }

  /** A large batch: a Run call of its own, which its deadline or a closing api cancels. */
  private async runOne(tenantId: number, batch: TokenizerBatch): Promise<TokenizerResult> {
    const req = await this.request(tenantId, batch);
    return this.call<BatchResult__Output>('Run', (meta, options, callback) => this.client.Run(req, meta, options, callback), this.deadlineMs, () => sizeOf(batch));
  }

  /**
   * A small batch: a message on the RunStream (tokenizer-stream.ts), which rides out a tokenizer restart within the
   * batch's deadline.
   */
  private async runSmall(tenantId: number, batch: TokenizerBatch): Promise<TokenizerResult> {
    return this.streams.run(await this.request(tenantId, batch));
  }

  async keyringInfo(deadlineMs = 1000): Promise<KeyringInfoResponse__Output> {
    return this.call<KeyringInfoResponse__Output>('KeyringInfo', (meta, options, callback) => this.client.KeyringInfo({}, meta, options, callback), deadlineMs);
  }

  /** Adds a master key version and makes it active; answers the new active version. */
  async rotate(): Promise<number> {
    const res = await this.call<RotateResponse__Output>('Rotate', (meta, options, callback) => this.client.Rotate({}, meta, options, callback));
    return res.active;
  }

  /** Removes a master key version nothing is sealed under any more; answers the versions left. */
  async retire(version: number): Promise<number[]> {
    const res = await this.call<RetireResponse__Output>('Retire', (meta, options, callback) => this.client.Retire({ version }, meta, options, callback));
    return res.versions;
  }

  /** A new wrapping key from three or more recovery shares; TokenizerRejectedError when they do not fit. */
  async rewrap(shares: string[]): Promise<string> {
    const res = await this.call<RewrapResponse__Output>('Rewrap', (meta, options, callback) => this.client.Rewrap({ shares }, meta, options, callback));
    return res.wrapping_key;
  }

  /**
   * A new set of five recovery shares from three current ones (the old set is then void): in clear, or, when the
   * tokenizer has age recipients, only encrypted. TokenizerRejectedError `invalid` when the shares are wrong,
   * `refused` when the keyring has no recovery key.
   */
  async resplit(shares: string[]): Promise<ResplitResponse__Output> {
    return this.call<ResplitResponse__Output>('Resplit', (meta, options, callback) => this.client.Resplit({ shares }, meta, options, callback));
  }

  /**
   * The keyed links of consecutive audit events from `firstSeq` on, chained from `previous` (see ChainAudit in the
   * proto). Call `prepare(tenantId)` first when inside a transaction.
   */
  async chainAudit(tenantId: number, previous: Buffer, firstSeq: number, canonical: string[]): Promise<Buffer[]> {
    const req = { tenant_id: tenantId, tenant_salt: await this.saltOf(tenantId), previous, first_seq: String(firstSeq), canonical };
    const res = await this.call<ChainAuditResponse__Output>('ChainAudit', (meta, options, callback) => this.client.ChainAudit(req, meta, options, callback));
    return res.links;
  }

  /**
   * The same links through Run: the call rides with other callers' items of the same turn (the audit chainer's,
   * beside the opens of the reads it records), one round trip where there were two. `alone`: a message of its own
   * (a head's report), never merged, nor seen by `idle`.
   */
  async chainInRun(tenantId: number, run: AuditRun, alone = false): Promise<{ links: Buffer[]; refused: number[] }> {
    const { chained } = alone ? await this.runSmall(tenantId, { chain: [run] }) : await this.run(tenantId, { chain: [run] });
    return { links: chained[0]!.links, refused: chained[0]!.refused };
  }

  /** The newest head of the tenant's trail the tokenizer knows committed (seq 0: none). */
  async auditHighWater(tenantId: number): Promise<{ seq: number; link: Buffer }> {
    const req = { tenant_id: tenantId, tenant_salt: await this.saltOf(tenantId) };
    const res = await this.call<AuditHighWaterResponse__Output>('AuditHighWater', (meta, options, callback) => this.client.AuditHighWater(req, meta, options, callback));
    return { seq: Number(res.seq), link: res.link };
  }

  /** A signature of the tenant's head at the tokenizer's time; TokenizerRejectedError when `link` is not its link. */
  async signCheckpoint(
    tenantId: number,
    head: { seq: number; link: Buffer; previous: Buffer; canonical: string; digest: Buffer; previousDigest: Buffer },
  ): Promise<{ seq: number; link: Buffer; digest: Buffer; time: number; signature: Buffer }> {
    const req = {
      tenant_id: tenantId,
      tenant_salt: await this.saltOf(tenantId),
      seq: String(head.seq),
      link: head.link,
      previous: head.previous,
      canonical: head.canonical,
      digest: head.digest,
      previous_digest: head.previousDigest,
    };
    const res = await this.call<SignCheckpointResponse__Output>('SignCheckpoint', (meta, options, callback) => this.client.SignCheckpoint(req, meta, options, callback));
    return { seq: Number(res.seq), link: res.link, digest: res.digest, time: Number(res.time), signature: res.signature };
  }

  /**
   * Values sealed before per-person keys, opened and sealed again under persons' data keys in one call (see
   * ResealLegacy in the proto); keys of `newKeys` are made in it. Call `prepare(tenantId)` first when inside a
   * transaction.
   */
  async resealLegacy(
    tenantId: number,
    newKeys: string[],
    items: { from: { table: string; rowId: string }; ciphertext: Buffer; table: string; rowId: string; key: PersonKey }[],
  ): Promise<{ wrappedKeys: Buffer[]; resealed: Buffer[] }> {
    const req = {
      tenant_id: tenantId,
      tenant_salt: await this.saltOf(tenantId),
      new_key_subjects: newKeys,
      items: items.map((i) => ({
        from_table: i.from.table,
        from_row_id: i.from.rowId,
        ciphertext: i.ciphertext,
        table: i.table,
        row_id: i.rowId,
        subject: i.key.subject,
        wrapped_key: i.key.wrapped ?? Buffer.alloc(0),
      })),
    };
    const res = await this.call<ResealLegacyResponse__Output>('ResealLegacy', (meta, options, callback) => this.client.ResealLegacy(req, meta, options, callback));
    return { wrappedKeys: res.wrapped_keys, resealed: res.resealed };
  }

  close(): void {
    this.streams.close();
    this.client.close();
  }

  /** `size`: a batch's items and bytes, for its span when traced (tokenizer-trace.ts). */
  private call<Res>(method: Method, send: Send<Res>, deadlineMs = this.deadlineMs, size?: () => { items: number; bytes: number }): Promise<Res> {
    const started = performance.now();
    return inTokenizerSpan(method, size, (span) => new Promise<Res>((resolve, reject) => {
      const deadline = new Date(Date.now() + deadlineMs);
      send(callMetadata(), { deadline }, (err, res) => {
        const code = err ? grpc.status[err.code] ?? String(err.code) : 'OK';
        tokenizerDuration.observe({ method, code }, (performance.now() - started) / 1000);
        span?.setAttribute('rpc.grpc.status_code', err ? err.code : grpc.status.OK);
        if (!err) return resolve(res as Res);
        reject(failure(method, err.code, err.details));
      });
    }));
  }
}
