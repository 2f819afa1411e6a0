// Original file: proto/tokenizer.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Signed over proto/audit-checkpoint.ts's checkpointMessage(tenant, seq, link, digest, time).
 */
export interface SignCheckpointResponse {
  'seq'?: (number | string | Long);
  'link'?: (Buffer | Uint8Array | string);
  /**
   * Seconds since the epoch, by the tokenizer's clock.
   */
  'time'?: (number | string | Long);
  'signature'?: (Buffer | Uint8Array | string);
  'digest'?: (Buffer | Uint8Array | string);
}

/**
 * Signed over proto/audit-checkpoint.ts's checkpointMessage(tenant, seq, link, digest, time).
 */
export interface SignCheckpointResponse__Output {
  'seq': (string);
  'link': (Buffer);
  /**
   * Seconds since the epoch, by the tokenizer's clock.
   */
  'time': (string);
  'signature': (Buffer);
  'digest': (Buffer);
}
