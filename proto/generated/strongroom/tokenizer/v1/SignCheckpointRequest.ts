// Original file: proto/tokenizer.proto

import type { Long } from '@grpc/proto-loader';

/**
 * The tenant's head: its last event's sequence number, link, canonical text and the link before it.
 */
export interface SignCheckpointRequest {
  'tenant_id'?: (number);
  'tenant_salt'?: (Buffer | Uint8Array | string);
  'seq'?: (number | string | Long);
  'link'?: (Buffer | Uint8Array | string);
  'previous'?: (Buffer | Uint8Array | string);
  'canonical'?: (string);
  /**
   * The public digest chain at seq and before it (proto/audit-checkpoint.ts, auditDigest()).
   */
  'digest'?: (Buffer | Uint8Array | string);
  'previous_digest'?: (Buffer | Uint8Array | string);
}

/**
 * The tenant's head: its last event's sequence number, link, canonical text and the link before it.
 */
export interface SignCheckpointRequest__Output {
  'tenant_id': (number);
  'tenant_salt': (Buffer);
  'seq': (string);
  'link': (Buffer);
  'previous': (Buffer);
  'canonical': (string);
  /**
   * The public digest chain at seq and before it (proto/audit-checkpoint.ts, auditDigest()).
   */
  'digest': (Buffer);
  'previous_digest': (Buffer);
}
