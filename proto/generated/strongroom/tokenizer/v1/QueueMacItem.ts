// Original file: proto/tokenizer.proto


/**
 * A write's audit event, to be queued with a MAC under the tenant's `audit-queue` key over its uuid, time, tenant and
 * sha256 of its canonical text (api/vault/audit/note.ts, canonical()). `head` is that text without its last element (the
 * sealed details): the JSON array of the nine other fields. The details are the seal item of this batch for table
 * `audit_events` and row `uuid` when there is one, else `details` as given (empty: none). FAILED_PRECONDITION when
 * the event's time is off the tokenizer's clock by more than the allowed skew (tokenizer/audit-queue.ts).
 */
export interface QueueMacItem {
  'uuid'?: (string);
  'head'?: (string);
  'details'?: (Buffer | Uint8Array | string);
}

/**
 * A write's audit event, to be queued with a MAC under the tenant's `audit-queue` key over its uuid, time, tenant and
 * sha256 of its canonical text (api/vault/audit/note.ts, canonical()). `head` is that text without its last element (the
 * sealed details): the JSON array of the nine other fields. The details are the seal item of this batch for table
 * `audit_events` and row `uuid` when there is one, else `details` as given (empty: none). FAILED_PRECONDITION when
 * the event's time is off the tokenizer's clock by more than the allowed skew (tokenizer/audit-queue.ts).
 */
export interface QueueMacItem__Output {
  'uuid': (string);
  'head': (string);
  'details': (Buffer);
}
