// How the tokenizer answers a gRPC call: every outcome, thrown or returned, answers it exactly once, and only the
// tokenizer's own messages reach the caller (a foreign error could quote a plaintext).
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { BadItemError, StoppedError } from './batch.js';
import { AuditCutError } from './audit-heads.js';
import { QueueRefusedError } from './audit-queue.js';
import { CustodyUnavailableError } from './custody.js';
import { TenantKeyUnavailableError } from './tenant-wrap.js';
import type { Span } from '@opentelemetry/api';
import { inServedSpan, traceparentOf } from './call-span.js';

/** A request the tokenizer understood and refuses (wrong recovery shares): FAILED_PRECONDITION. */
export class RefusedError extends Error {
  override name = 'RefusedError';
}

export function checkTenant(tenantId: number, salt: Buffer): void {
  if (!Number.isInteger(tenantId) || tenantId < 1) throw new BadItemError('tenant_id must be 1 or more');
  if (salt.length > 64) throw new BadItemError('tenant_salt is longer than 64 bytes');
}

export function deadlineOf(call: Pick<grpc.ServerUnaryCall<unknown, unknown>, 'getDeadline'>): number {
  const d = call.getDeadline();
  return d instanceof Date ? d.getTime() : d;
}

export function codeOf(err: unknown): grpc.status {
  if (err instanceof BadItemError) return grpc.status.INVALID_ARGUMENT;
  if (err instanceof RefusedError || err instanceof AuditCutError || err instanceof QueueRefusedError) return grpc.status.FAILED_PRECONDITION;
  // The tenant's own KEK is revoked, removed or away: the api answers 503 `The tenant's key is unavailable`, and only
  // that tenant's calls fail.
  if (err instanceof TenantKeyUnavailableError) return grpc.status.PERMISSION_DENIED;
  // The api answers 503 with Retry-After: the HSM may well be back.
  if (err instanceof CustodyUnavailableError) return grpc.status.UNAVAILABLE;
  if (err instanceof StoppedError) return err.why === 'cancelled' ? grpc.status.CANCELLED : grpc.status.DEADLINE_EXCEEDED;
  return grpc.status.INTERNAL;
}

/** Turns any failure into a status; only our own messages reach the caller, never a foreign error's. */
export function toStatus(err: unknown, log: Logger, method: string): Partial<grpc.StatusObject> {
  const code = codeOf(err);
  if (code !== grpc.status.INTERNAL) return { code, details: (err as Error).message };
  // Name and code only: some Node errors quote the offending argument, which could be a plaintext.
  const e = err as NodeJS.ErrnoException;
  log.error({ method, err: { type: e?.name, code: e?.code } }, 'tokenizer call failed');
  return { code, details: 'internal error' };
}

/** Wraps an async handler once: every outcome, thrown or returned, answers the call exactly once. */
export function unary<Req, Res>(log: Logger, method: string, handler: (call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    let answered = false;
    const answer = (err: Partial<grpc.StatusObject> | null, res?: Res) => {
      if (answered) return;
      answered = true;
      callback(err, res);
    };
    // The call's span, when the api traced it (call-span.ts), records the status the call is answered with.
    const served = (span: Span | undefined) =>
      Promise.resolve()
        .then(() => handler(call))
        .then(
          (res) => (span?.setAttribute('rpc.grpc.status_code', grpc.status.OK), res),
          (err: unknown) => {
            span?.setAttribute('rpc.grpc.status_code', codeOf(err));
            throw err;
          },
        );
    Promise.resolve()
      .then(() => inServedSpan(method, traceparentOf(call.metadata), served))
      .then(
        (res) => answer(null, res),
        (err: unknown) => answer(toStatus(err, log, method)),
      )
      .catch((err: unknown) => log.error({ method, err: { type: (err as Error)?.name } }, 'answering a call failed'));
  };
}
