// Why a reconcile did not reach the desired state: a Ready=False reason (PascalCase), a message for humans (never a
// token), and when to try again: with the queue's backoff (the default), after a fixed time, or only when the
// resource changes (`permanent`: nothing but a new spec can fix it).
import { apiMessage, apiStatus } from '../kube.js';
import { VaultAnswerError, VaultUnavailableError } from '../vault-client.js';

export class ReconcileError extends Error {
  override name = 'ReconcileError';
  constructor(
    readonly reason: string,
    message: string,
    readonly retry: { retryAfterMs?: number; permanent?: boolean } = {},
  ) {
    super(message);
  }
}

/** Any failure as a ReconcileError, with the reason the Ready condition and the error metric carry. */
export function asReconcileError(err: unknown): ReconcileError {
  if (err instanceof ReconcileError) return err;
  if (err instanceof VaultUnavailableError) return new ReconcileError('VaultUnavailable', err.message);
  if (err instanceof VaultAnswerError) {
    // The vault judged the request itself: only a changed spec can make it pass.
    if (err.status === 400) return new ReconcileError('InvalidSpec', `the vault refused it: ${err.message}`, { permanent: true });
    if (err.status === 401 || err.status === 403) return new ReconcileError('VaultAccessDenied', `the vault refused the root token: ${err.message}`);
    return new ReconcileError('VaultError', err.message);
  }
  const status = apiStatus(err);
  if (status === 409) return new ReconcileError('Conflict', `a concurrent change: ${apiMessage(err)}`);
  if (status !== undefined) return new ReconcileError('KubernetesError', apiMessage(err));
  return new ReconcileError('InternalError', (err as Error).message ?? String(err));
}
