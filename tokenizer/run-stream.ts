// RunStream: many batches over one stream, each answered once, by id; a batch's failure is its reply's, never the
// stream's. A stream ends once its caller has ended it, or the server is closing, and every batch it carried is
// answered (the api then opens a new one).
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Batch__Output, BatchResult, RunRequest__Output, TokenizerHandlers } from '../proto/loader.js';
import { BadItemError } from './batch.js';
import { toStatus } from './calls.js';
import { inServedSpan } from './call-span.js';

/** One batch, until `deadline` (ms since the epoch) or until `cancelled`. */
export type RunOne = (req: Batch__Output, deadline: number, cancelled: () => boolean) => Promise<BatchResult>;

export class RunStreams {
  private readonly open = new Set<{ end: () => void }>();
  private closing = false;

  constructor(
    private readonly run: RunOne,
    private readonly log: Logger,
  ) {}

  /** The RunStream handler. */
  readonly handler: TokenizerHandlers['RunStream'] = (call) => {
    const stream = { running: 0, ending: false, end: () => undefined as void };
    const endIfDone = () => {
      if (stream.ending && stream.running === 0 && call.writable) call.end();
    };
    stream.end = () => {
      stream.ending = true;
      endIfDone();
    };
    this.open.add(stream);
    call.on('data', (req: RunRequest__Output) => {
      if (stream.ending) return;
      stream.running++;
      // answer() catches everything it can meet: the stream's count is all that is left to do.
      void this.answer(call, req).finally(() => {
        stream.running--;
        endIfDone();
      });
    });
    call.on('end', () => stream.end());
    call.on('error', () => undefined);
    call.on('close', () => this.open.delete(stream));
    if (this.closing) stream.end();
  };

  /** Ends every open stream once its batches are answered; streams opened from now on end at once. */
  endAll(): void {
    this.closing = true;
    for (const stream of this.open) stream.end();
  }

  private answer(call: Parameters<TokenizerHandlers['RunStream']>[0], req: RunRequest__Output): Promise<void> {
    const deadline = Date.now() + Math.max(1, req.timeout_ms);
    return Promise.resolve()
      .then(() => {
        if (!req.batch) throw new BadItemError('batch is missing');
        const batch = req.batch;
        // A traced request's batch carries its trace context (call-span.ts).
        return inServedSpan('Run', req.traceparent, () => this.run(batch, deadline, () => call.cancelled));
      })
      .then(
        (result) => ({ id: req.id, result, code: grpc.status.OK, details: '' }),
        (err: unknown) => {
          const status = toStatus(err, this.log, 'RunStream');
          return { id: req.id, code: status.code ?? grpc.status.INTERNAL, details: status.details ?? '' };
        },
      )
      .then((reply) => {
        if (!call.cancelled && call.writable) call.write(reply);
      })
      .catch((err: unknown) => this.log.error({ method: 'RunStream', err: { type: (err as Error)?.name } }, 'answering a call failed'));
  }
}
