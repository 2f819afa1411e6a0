// Small batches go to the tokenizer as messages on one RunStream (opened on first use, and again after it ends or
// fails). A batch whose stream fails before its answer is sent again on the next one while its deadline lasts, as
// a Run with waitForReady rides out a tokenizer restart; past the deadline it fails as a Run would.
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import type { Batch, RunReply__Output, RunRequest, TokenizerGrpcClient } from '../proto/loader.js';
import { UnavailableError } from './errors.js';
import { tokenizerDuration } from './metrics.js';
import { failure, type TokenizerResult } from './tokenizer-batch.js';

/** A small batch on the RunStream, until answered. */
interface StreamedBatch {
  id: string;
  batch: Batch;
  /** A traced request's W3C trace context, or ''. */
  traceparent: string;
  deadlineAt: number;
  /** The stream it was last sent on. */
  stream: RunStream | undefined;
  timer: NodeJS.Timeout;
  answer(reply: RunReply__Output): void;
}

type RunStream = grpc.ClientDuplexStream<RunRequest, RunReply__Output>;

/** The pause before the batches of a lost stream are sent again on a new one. */
const STREAM_RETRY_MS = 25;

export class RunStreamChannel {
  private stream: RunStream | undefined;
  private readonly pending = new Map<string, StreamedBatch>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly client: TokenizerGrpcClient,
    private readonly deadlineMs: number,
  ) {}

  /**
   * A small batch: a message on the RunStream (opened on first use, and again after it ends or fails). A batch
   * whose stream fails before its answer is sent again on the next one while its deadline lasts, as a Run with
   * waitForReady rides out a tokenizer restart; past the deadline it fails as a Run would (UnavailableError).
   * `traceparent`: a traced request's trace context, for the tokenizer's span (api/tokenizer-trace.ts).
   */
  run(req: Batch, traceparent = ''): Promise<TokenizerResult> {
    return new Promise<TokenizerResult>((resolve, reject) => {
      const id = String(this.nextId++);
      const started = performance.now();
      const settle = (code: string) => {
        this.pending.delete(id);
        clearTimeout(p.timer);
        tokenizerDuration.observe({ method: 'Run', code }, (performance.now() - started) / 1000);
      };
      const p: StreamedBatch = {
        id,
        batch: req,
        traceparent,
        deadlineAt: Date.now() + this.deadlineMs,
        stream: undefined,
        timer: setTimeout(() => {
          settle('DEADLINE_EXCEEDED');
          reject(new UnavailableError('The tokenizer is unavailable'));
        }, this.deadlineMs),
        answer: (reply) => {
          settle(grpc.status[reply.code] ?? String(reply.code));
          if (reply.code === grpc.status.OK && reply.result) return resolve(reply.result);
          reject(failure('Run', reply.code, reply.details));
        },
      };
      this.pending.set(id, p);
      this.send(p);
    });
  }


  private send(p: StreamedBatch): void {
    if (this.closed) return p.answer({ id: p.id, code: grpc.status.UNAVAILABLE, details: 'closed', result: null });
    const stream = (this.stream ??= this.openStream());
    p.stream = stream;
    stream.write({ id: p.id, batch: p.batch, timeout_ms: Math.max(1, p.deadlineAt - Date.now()), traceparent: p.traceparent });
  }

  private openStream(): RunStream {
    const stream = this.client.RunStream(new grpc.Metadata({ waitForReady: true }));
    stream.on('data', (reply: RunReply__Output) => this.pending.get(reply.id)?.answer(reply));
    let broken = false;
    const lost = () => {
      if (broken) return;
      broken = true;
      if (this.stream === stream) this.stream = undefined;
      // What it carried and did not answer goes again, on a new stream, after a pause (a tokenizer shutting down
      // refuses new streams at once: no tight loop); the deadline of each still holds.
      const again = [...this.pending.values()].filter((p) => p.stream === stream);
      if (again.length === 0) return;
      setTimeout(() => {
        for (const p of again) if (this.pending.has(p.id)) this.send(p);
      }, STREAM_RETRY_MS).unref();
    };
    stream.on('error', lost);
    stream.on('end', lost);
    stream.on('close', lost);
    return stream;
  }

  /** Answers whatever is still waiting as unavailable, and sends nothing more. */
  close(): void {
    this.closed = true;
    this.stream?.cancel();
  }
}
