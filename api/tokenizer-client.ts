// The api's only door to the tokenizer: batched gRPC calls with deadlines, wait-for-ready and latency metrics.
// Small calls made in the same turn of the event loop for the same tenant travel together in one Run.
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_PATH, loaderOptions, channelOptions } from '../tokenizer/proto.js';
import { UnavailableError } from './errors.js';
import { tokenizerDuration } from './metrics.js';
import { Coalescer } from './coalesce.js';

export type IndexKind = 'LOGIN' | 'EMAIL' | 'PHONE' | 'CUSTOM' | 'DEDUPE';

export type TokenFormat = 'CREDITCARD' | 'UNIXTIME' | 'EMAIL';

export interface TokenizerBatch {
  hash?: { kind: IndexKind; value: string }[];
  seal?: { table: string; rowId: string; plaintext: Buffer }[];
  open?: { table: string; rowId: string; ciphertext: Buffer }[];
  tokenize?: { format: TokenFormat; value: string; attempt: number }[];
  detokenize?: { format: TokenFormat; token: string; attempt: number }[];
}

export interface TokenizerResult {
  hash: Buffer[];
  sealed: Buffer[];
  opened: Buffer[];
  tokens: { token: string; attempt: number; index: Buffer }[];
  detokenized: string[];
}

interface RawClient extends grpc.Client {
  Run(req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: grpc.requestCallback<RawResult>): void;
  KeyringInfo(req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: grpc.requestCallback<{ versions: number[]; active: number }>): void;
  Rewrap(req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: grpc.requestCallback<{ wrapping_key: string }>): void;
}
type RawResult = TokenizerResult;

// Calls up to this size are merged with their neighbours; bulk calls are already one batch and go alone.
const COALESCE_MAX_ITEMS = 16;
const COALESCE_MAX_BYTES = 256 * 1024;

type Outcome = { ok: true; value: TokenizerResult } | { ok: false; error: unknown };

function sizeOf(batch: TokenizerBatch): { items: number; bytes: number } {
  let bytes = 0;
  for (const s of batch.seal ?? []) bytes += s.plaintext.length;
  for (const o of batch.open ?? []) bytes += o.ciphertext.length;
  const items =
    (batch.hash?.length ?? 0) + (batch.seal?.length ?? 0) + (batch.open?.length ?? 0) + (batch.tokenize?.length ?? 0) + (batch.detokenize?.length ?? 0);
  return { items, bytes };
}

/** Thrown when the tokenizer refuses a batch: the api built it, so this is a server fault, never the client's. */
export class TokenizerRejectedError extends Error {
  override name = 'TokenizerRejectedError';
  constructor(
    method: string,
    /** The tokenizer's own words: which item and why, never the item's content. */
    readonly reason: string,
  ) {
    super(`tokenizer rejected ${method}: ${reason}`);
  }
}

export class TokenizerClient {
  private readonly client: RawClient;
  // Two calls per tenant in flight keep the tokenizer busy; everything that arrives meanwhile rides the next one.
  private readonly merged = new Coalescer<TokenizerBatch, Outcome>((key, batches) => this.runMerged(Number(key), batches), {
    maxInFlight: 2,
  });

  constructor(
    target: string,
    private readonly deadlineMs: number,
  ) {
    const def = protoLoader.loadSync(PROTO_PATH, loaderOptions);
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      strongroom: { tokenizer: { v1: { Tokenizer: new (t: string, c: grpc.ChannelCredentials, o: object) => RawClient } } };
    };
    // No retry policy: grpc-js buffers every message of a retryable call, which doubles the round trip
    // (0.28 ms → 0.62 ms measured). waitForReady rides out a tokenizer restart instead, bounded by the deadline.
    this.client = new pkg.strongroom.tokenizer.v1.Tokenizer(target, grpc.credentials.createInsecure(), {
      ...channelOptions,
      'grpc.enable_retries': 0,
    });
  }

  /** One call for the whole batch; results come back in request order. */
  async run(tenantId: number, batch: TokenizerBatch): Promise<TokenizerResult> {
    const { items, bytes } = sizeOf(batch);
    if (items > COALESCE_MAX_ITEMS || bytes > COALESCE_MAX_BYTES) return this.runOne(tenantId, batch);
    const outcome = await this.merged.add(String(tenantId), batch);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /** Several callers' batches as one Run, each caller's results sliced back out of the merged answer. */
  private async runMerged(tenantId: number, batches: TokenizerBatch[]): Promise<Outcome[]> {
    if (batches.length === 1) {
      return [await this.runOne(tenantId, batches[0]!).then((value): Outcome => ({ ok: true, value }), (error: unknown): Outcome => ({ ok: false, error }))];
    }
    const merged: Required<TokenizerBatch> = { hash: [], seal: [], open: [], tokenize: [], detokenize: [] };
    for (const b of batches) {
      if (b.hash) merged.hash.push(...b.hash);
      if (b.seal) merged.seal.push(...b.seal);
      if (b.open) merged.open.push(...b.open);
      if (b.tokenize) merged.tokenize.push(...b.tokenize);
      if (b.detokenize) merged.detokenize.push(...b.detokenize);
    }
    let result: TokenizerResult;
    try {
      result = await this.runOne(tenantId, merged);
    } catch (error) {
      // One caller's bad item must not fail its neighbours: on a refusal each batch is asked on its own.
      if (error instanceof TokenizerRejectedError) return this.runEach(tenantId, batches);
      return batches.map(() => ({ ok: false, error }));
    }
    const at = { hash: 0, sealed: 0, opened: 0, tokens: 0, detokenized: 0 };
    return batches.map((b) => {
      const value: TokenizerResult = {
        hash: result.hash.slice(at.hash, (at.hash += b.hash?.length ?? 0)),
        sealed: result.sealed.slice(at.sealed, (at.sealed += b.seal?.length ?? 0)),
        opened: result.opened.slice(at.opened, (at.opened += b.open?.length ?? 0)),
        tokens: result.tokens.slice(at.tokens, (at.tokens += b.tokenize?.length ?? 0)),
        detokenized: result.detokenized.slice(at.detokenized, (at.detokenized += b.detokenize?.length ?? 0)),
      };
      return { ok: true, value };
    });
  }

  private runEach(tenantId: number, batches: TokenizerBatch[]): Promise<Outcome[]> {
    return Promise.all(
      batches.map((b) => this.runOne(tenantId, b).then((value): Outcome => ({ ok: true, value }), (error: unknown): Outcome => ({ ok: false, error }))),
    );
  }

  private runOne(tenantId: number, batch: TokenizerBatch): Promise<TokenizerResult> {
    const req = {
      tenant_id: tenantId,
      hash: batch.hash ?? [],
      seal: (batch.seal ?? []).map((s) => ({ table: s.table, row_id: s.rowId, plaintext: s.plaintext })),
      open: (batch.open ?? []).map((o) => ({ table: o.table, row_id: o.rowId, ciphertext: o.ciphertext })),
      tokenize: batch.tokenize ?? [],
      detokenize: batch.detokenize ?? [],
    };
    return this.call<RawResult>('Run', req);
  }

  async keyringInfo(deadlineMs = 1000): Promise<{ versions: number[]; active: number }> {
    return this.call('KeyringInfo', {}, deadlineMs);
  }

  /** A new wrapping key from three or more recovery shares; TokenizerRejectedError when they do not fit. */
  async rewrap(shares: string[]): Promise<string> {
    return (await this.call<{ wrapping_key: string }>('Rewrap', { shares })).wrapping_key;
  }

  close(): void {
    this.client.close();
  }

  private call<T>(method: 'Run' | 'KeyringInfo' | 'Rewrap', req: unknown, deadlineMs = this.deadlineMs): Promise<T> {
    const started = performance.now();
    return new Promise<T>((resolve, reject) => {
      const deadline = new Date(Date.now() + deadlineMs);
      const fn = this.client[method].bind(this.client) as RawClient['Run'];
      fn(req, new grpc.Metadata({ waitForReady: true }), { deadline }, (err, res) => {
        const code = err ? grpc.status[err.code] ?? String(err.code) : 'OK';
        tokenizerDuration.observe({ method, code }, (performance.now() - started) / 1000);
        if (!err) return resolve(res as T);
        if (err.code === grpc.status.INVALID_ARGUMENT || err.code === grpc.status.FAILED_PRECONDITION) {
          return reject(new TokenizerRejectedError(method, err.details));
        }
        return reject(new UnavailableError('The tokenizer is unavailable'));
      });
    });
  }
}
