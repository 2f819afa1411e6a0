// The edge of the API: every answer is a JSON envelope, and foreign errors become the contract's own.
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { TenantKeyUnavailableError, TooManyRequestsError, VaultError, Messages } from '../errors.js';
import { fromDatabaseError } from '../store/errors.js';

interface HttpishError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
}

/** Maps any thrown value to (status, message) without ever leaking internals. */
export function toEnvelope(caught: unknown): { status: number; message: string } {
  const err = fromDatabaseError(caught);
  if (err instanceof VaultError) return { status: err.status, message: err.message };
  const e = (err ?? {}) as HttpishError;
  const status = e.status ?? e.statusCode;
  // koa-body: oversized bodies and malformed JSON. Their messages may quote the body, so use ours.
  if (status === 413 || e.type === 'entity.too.large') return { status: 413, message: Messages.tooLarge };
  if (err instanceof SyntaxError || (status === 400 && e.expose !== false)) return { status: 400, message: Messages.badBody };
  if (status === 415) return { status: 400, message: Messages.badBody };
  return { status: 500, message: Messages.internal };
}

export function envelope(log: Logger) {
  return async function envelopeMiddleware(ctx: Context, next: Next) {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { status: 'error', message: Messages.unknownEndpoint };
      }
    } catch (err) {
      const { status, message } = toEnvelope(err);
      // Never log the error's own text for client errors: parser errors may carry the raw body. A busy refusal is
      // load shed as designed: a warning, without a stack.
      if (message === Messages.busy) log.warn({ reqId: ctx.state.reqId, status }, 'request refused: busy');
      else if (err instanceof TenantKeyUnavailableError) log.warn({ reqId: ctx.state.reqId, status }, 'request refused: the tenant\'s key is unavailable');
      else if (status >= 500) log.error({ err: sanitize(err), reqId: ctx.state.reqId }, 'request failed');
      ctx.status = status;
      // A dependency is down (database, tokenizer, file store): the client may try again shortly.
      if (status === 503) ctx.set('Retry-After', '1');
      if (err instanceof TooManyRequestsError || err instanceof TenantKeyUnavailableError) ctx.set('Retry-After', String(err.retryAfter));
      ctx.body = { status: 'error', message };
    }
  };
}

/** Keeps the error's type and stack but drops fields that may hold request data. */
function sanitize(err: unknown): { type: string; message: string; stack?: string | undefined } {
  if (err instanceof Error) return { type: err.name, message: err.message, stack: err.stack };
  return { type: typeof err, message: 'non-error thrown' };
}
