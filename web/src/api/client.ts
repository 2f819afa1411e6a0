// Calls POST /v2/<Operation> with the request types generated from the vault's OpenAPI document.
import type { OperationName, Requests } from './requests.gen';
import { HOUSEKEEPING } from './housekeeping';

/** A JSON answer with `status: "ok"`; its other fields are read where they are shown. */
export type Answer = Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Credentials {
  token?: string | undefined;
  tenant?: string | undefined;
  /** `housekeeping`: a read the console makes for itself, about the vault and nobody in it (./housekeeping.ts). */
  purpose?: 'housekeeping' | undefined;
}

function headersOf(creds: Credentials): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (creds.token) headers['x-bunker-token'] = creds.token;
  if (creds.tenant) headers['x-bunker-tenant'] = creds.tenant;
  if (creds.purpose) headers['x-strongroom-purpose'] = creds.purpose;
  return headers;
}

/** The credentials for a console call of `op`: marked housekeeping when `op` is one of HOUSEKEEPING. */
export function consoleCredentials(op: OperationName, creds: Credentials): Credentials {
  return HOUSEKEEPING.has(op) ? { ...creds, purpose: 'housekeeping' } : creds;
}

async function post(op: string, body: unknown, creds: Credentials): Promise<Response> {
  try {
    return await fetch(`/v2/${op}`, { method: 'POST', headers: headersOf(creds), body: JSON.stringify(body ?? {}), credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError('The vault cannot be reached. Check your connection and try again.', 0);
  }
}

/** Throws an ApiError carrying the vault's own message when the answer is not `status: "ok"`. */
export async function call<Op extends OperationName>(op: Op, body: Requests[Op], creds: Credentials): Promise<Answer> {
  const res = await post(op, body, creds);
  let answer: Answer;
  try {
    answer = (await res.json()) as Answer;
  } catch {
    throw new ApiError(`The vault answered ${res.status} without JSON.`, res.status);
  }
  if (answer.status !== 'ok') throw new ApiError(typeof answer.message === 'string' ? answer.message : `Request failed (${res.status})`, res.status);
  return answer;
}

/** FileGet with `raw`: the file's bytes as a Blob, ready to download. */
export async function callRaw<Op extends OperationName>(op: Op, body: Requests[Op], creds: Credentials): Promise<Blob> {
  const res = await post(op, body, creds);
  if (res.headers.get('content-type')?.includes('application/json')) {
    const answer = (await res.json()) as Answer;
    throw new ApiError(typeof answer.message === 'string' ? answer.message : `Request failed (${res.status})`, res.status);
  }
  return res.blob();
}

/** The rows of a list answer (`rows`, or the named field). */
export function rowsOf(answer: Answer | undefined, field = 'rows'): Record<string, unknown>[] {
  const rows = answer?.[field];
  return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
}

export function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
