// The api's only door to the tokenizer: batched gRPC calls with deadlines, wait-for-ready and latency metrics.
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_PATH, loaderOptions, channelOptions } from '../tokenizer/proto.js';
import { UnavailableError } from './http/errors.js';
import { tokenizerDuration } from './http/metrics.js';

export type IndexKind = 'LOGIN' | 'EMAIL' | 'PHONE' | 'CUSTOM' | 'DEDUPE';

export interface TokenizerBatch {
  hash?: { kind: IndexKind; value: string }[];
  seal?: { table: string; rowId: string; plaintext: Buffer }[];
  open?: { table: string; rowId: string; ciphertext: Buffer }[];
}

export interface TokenizerResult {
  hash: Buffer[];
  sealed: Buffer[];
  opened: Buffer[];
}

interface RawClient extends grpc.Client {
  Run(req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: grpc.requestCallback<RawResult>): void;
  KeyringInfo(req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: grpc.requestCallback<{ versions: number[]; active: number }>): void;
}
interface RawResult {
  hash: Buffer[];
  sealed: Buffer[];
  opened: Buffer[];
}

/** Thrown when the tokenizer refuses a batch: the api built it, so this is a server fault, never the client's. */
export class TokenizerRejectedError extends Error {
  override name = 'TokenizerRejectedError';
}

export class TokenizerClient {
  private readonly client: RawClient;

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
  run(tenantId: number, batch: TokenizerBatch): Promise<TokenizerResult> {
    const req = {
      tenant_id: tenantId,
      hash: batch.hash ?? [],
      seal: (batch.seal ?? []).map((s) => ({ table: s.table, row_id: s.rowId, plaintext: s.plaintext })),
      open: (batch.open ?? []).map((o) => ({ table: o.table, row_id: o.rowId, ciphertext: o.ciphertext })),
    };
    return this.call<RawResult>('Run', req);
  }

  async keyringInfo(deadlineMs = 1000): Promise<{ versions: number[]; active: number }> {
    return this.call('KeyringInfo', {}, deadlineMs);
  }

  close(): void {
    this.client.close();
  }

  private call<T>(method: 'Run' | 'KeyringInfo', req: unknown, deadlineMs = this.deadlineMs): Promise<T> {
    const started = performance.now();
    return new Promise<T>((resolve, reject) => {
      const deadline = new Date(Date.now() + deadlineMs);
      const fn = this.client[method].bind(this.client) as RawClient['Run'];
      fn(req, new grpc.Metadata({ waitForReady: true }), { deadline }, (err, res) => {
        const code = err ? grpc.status[err.code] ?? String(err.code) : 'OK';
        tokenizerDuration.observe({ method, code }, (performance.now() - started) / 1000);
        if (!err) return resolve(res as T);
        if (err.code === grpc.status.INVALID_ARGUMENT || err.code === grpc.status.FAILED_PRECONDITION) {
          return reject(new TokenizerRejectedError(`tokenizer rejected ${method}: ${err.details}`));
        }
        return reject(new UnavailableError('The tokenizer is unavailable'));
      });
    });
  }
}
