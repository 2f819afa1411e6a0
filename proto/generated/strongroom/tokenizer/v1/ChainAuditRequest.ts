// Original file: proto/tokenizer.proto

import type { Long } from '@grpc/proto-loader';

/**
 * A run of consecutive audit events of one tenant: the link before the first, the first's sequence number, and
 * each event's canonical text (api/vault/audit/note.ts, canonical()).
 */
export interface ChainAuditRequest {
  'tenant_id'?: (number);
  'tenant_salt'?: (Buffer | Uint8Array | string);
  /**
   * Empty before the first event of a trail.
   */
  'previous'?: (Buffer | Uint8Array | string);
  'first_seq'?: (number | string | Long);
  'canonical'?: (string)[];
}

/**
 * A run of consecutive audit events of one tenant: the link before the first, the first's sequence number, and
 * each event's canonical text (api/vault/audit/note.ts, canonical()).
 */
export interface ChainAuditRequest__Output {
  'tenant_id': (number);
  'tenant_salt': (Buffer);
  /**
   * Empty before the first event of a trail.
   */
  'previous': (Buffer);
  'first_seq': (string);
  'canonical': (string)[];
}
