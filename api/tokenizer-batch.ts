// What the api sends the tokenizer and what comes back, as the api writes them: a Run batch without its tenant
// (spelled the api's way: `rowId`, a person's `key`), its size (what decides whether it is merged with others),
// its shape on the wire, and the errors a call ends in.
import * as grpc from '@grpc/grpc-js';
import type {
  Batch,
  BatchResult__Output,
  DetokenizeItem__Output,
  HashItem__Output,
  IndexKind,
  OpenItem__Output,
  SealItem__Output,
  TokenFormat,
  TokenizeItem__Output,
} from '../proto/loader.js';
import { TenantKeyUnavailableError, UnavailableError } from './errors.js';

/**
 * A person's data key as the api holds it: only wrapped. `wrapped` null means "the key this batch makes for the
 * subject" (listed in `newKeys`).
 */
export interface PersonKey {
  subject: string;
  wrapped: Buffer | null;
}

/** A seal or open item as the api writes it: `row_id` is spelled `rowId`; `key` makes the item personal. */
type WithRowId<T extends { row_id: string }> = Omit<T, 'row_id' | 'wrapped_key' | 'subject'> & { rowId: string; key?: PersonKey | undefined };

/** A Run batch without its tenant: the proto's items, every field set, enums limited to known values. */
export interface TokenizerBatch {
  hash?: (HashItem__Output & { kind: IndexKind })[];
  seal?: WithRowId<SealItem__Output>[];
  open?: WithRowId<OpenItem__Output>[];
  tokenize?: (TokenizeItem__Output & { format: TokenFormat })[];
  detokenize?: (DetokenizeItem__Output & { format: TokenFormat })[];
  /** Subjects that get a new data key, answered wrapped in `wrapped_keys`. */
  newKeys?: string[];
  /** Wrapped keys to wrap again under the active master version, answered in `rewrapped_keys`. */
  rewrapKeys?: { subject: string; wrapped: Buffer }[];
  /** Runs of audit events to link (see ChainItem in the proto), answered in `chained`. */
  chain?: AuditRun[];
  /** Queued audit events to authenticate (see QueueMacItem in the proto), answered in `queue_macs`. */
  queueMac?: { uuid: string; head: string; details: Buffer | null }[];
}

/** A run of audit events to link: queued ones first, with their MACs; and the newest head known committed. */
export interface AuditRun {
  previous: Buffer;
  firstSeq: number;
  canonical: string[];
  queueMac?: Buffer[];
  committed?: { seq: number; link: Buffer } | undefined;
  /** The event at firstSeq - 1 (its canonical text) and the link before it: the proof of `previous`. */
  proof?: { canonical: string; previous: Buffer; legacy?: boolean } | undefined;
  /** Per text, the row id of the same batch's audit seal item that holds its details (the text is then its head). */
  detailsSealedAs?: string[];
}

export type TokenizerResult = BatchResult__Output;

/** A tenant's own key-encryption key as batches carry it: the HSM object's label and the tenant key it wraps. */
export interface TenantKekRef {
  label: string;
  wrapped: Buffer;
  revoked: boolean;
}

export function sizeOf(batch: TokenizerBatch): { items: number; bytes: number } {
  let bytes = 0;
  for (const s of batch.seal ?? []) bytes += s.plaintext.length;
  for (const o of batch.open ?? []) bytes += o.ciphertext.length;
  let chained = 0;
  for (const c of batch.chain ?? []) {
    chained += c.canonical.length;
    for (const t of c.canonical) bytes += t.length;
  }
  const items =
    (batch.hash?.length ?? 0) + (batch.seal?.length ?? 0) + (batch.open?.length ?? 0) + (batch.tokenize?.length ?? 0) + (batch.detokenize?.length ?? 0) +
    (batch.newKeys?.length ?? 0) + (batch.rewrapKeys?.length ?? 0) + chained + (batch.queueMac?.length ?? 0);
  return { items, bytes };
}

function keyFields(key: PersonKey | undefined): { subject?: string; wrapped_key?: Buffer } {
  if (!key) return {};
  return key.wrapped ? { subject: key.subject, wrapped_key: key.wrapped } : { subject: key.subject };
}

/** Thrown when the tokenizer refuses a batch: the api built it, so this is a server fault, never the client's. */
export class TokenizerRejectedError extends Error {
  override name = 'TokenizerRejectedError';
  constructor(
    method: string,
    /** The tokenizer's own words: which item and why, never the item's content. */
    readonly reason: string,
    /** INVALID_ARGUMENT (`invalid`: what was sent is wrong) or FAILED_PRECONDITION (`refused`: the state is). */
    readonly kind: 'invalid' | 'refused' = 'invalid',
  ) {
    super(`tokenizer rejected ${method}: ${reason}`);
  }
}

/**
 * What a call that did not succeed throws: the tokenizer's refusal of the request (bad input, or a key it will not
 * use) as such; anything else (gone, overloaded, past the deadline, an answer without a result) as unavailable.
 */
export function failure(method: string, code: grpc.status, details: string): Error {
  // The tenant's own KEK is revoked, removed or away (see Batch.kek_label in the proto): only this tenant fails.
  if (code === grpc.status.PERMISSION_DENIED) return new TenantKeyUnavailableError();
  if (code === grpc.status.INVALID_ARGUMENT || code === grpc.status.FAILED_PRECONDITION) {
    return new TokenizerRejectedError(method, details, code === grpc.status.INVALID_ARGUMENT ? 'invalid' : 'refused');
  }
  return new UnavailableError('The tokenizer is unavailable');
}

/** The proto's Batch for a TokenizerBatch of `tenantId`, whose key salt is `tenantSalt`. */
export function toBatch(tenantId: number, tenantSalt: Buffer, batch: TokenizerBatch, kek?: TenantKekRef): Batch {
  return {
    tenant_id: tenantId,
    tenant_salt: tenantSalt,
    kek_label: kek?.label ?? '',
    kek_wrapped: kek?.wrapped ?? Buffer.alloc(0),
    hash: batch.hash ?? [],
    seal: (batch.seal ?? []).map((s) => ({ table: s.table, row_id: s.rowId, plaintext: s.plaintext, ...keyFields(s.key) })),
    open: (batch.open ?? []).map((o) => ({ table: o.table, row_id: o.rowId, ciphertext: o.ciphertext, ...keyFields(o.key) })),
    tokenize: batch.tokenize ?? [],
    detokenize: batch.detokenize ?? [],
    new_key_subjects: batch.newKeys ?? [],
    rewrap_keys: (batch.rewrapKeys ?? []).map((r) => ({ subject: r.subject, wrapped_key: r.wrapped })),
    chain: (batch.chain ?? []).map((c) => ({
      previous: c.previous,
      first_seq: String(c.firstSeq),
      canonical: c.canonical,
      queue_mac: c.queueMac ?? [],
      committed_seq: String(c.committed?.seq ?? 0),
      committed_link: c.committed?.link ?? Buffer.alloc(0),
      proof_canonical: c.proof?.canonical ?? '',
      proof_previous: c.proof?.previous ?? Buffer.alloc(0),
      proof_legacy: c.proof?.legacy ?? false,
      details_sealed_as: c.detailsSealedAs ?? [],
    })),
    queue_mac: (batch.queueMac ?? []).map((q) => ({ uuid: q.uuid, head: q.head, details: q.details ?? Buffer.alloc(0) })),
  };
}
