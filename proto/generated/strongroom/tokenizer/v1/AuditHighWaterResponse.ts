// Original file: proto/tokenizer.proto

import type { Long } from '@grpc/proto-loader';

export interface AuditHighWaterResponse {
  'seq'?: (number | string | Long);
  'link'?: (Buffer | Uint8Array | string);
}

export interface AuditHighWaterResponse__Output {
  'seq': (string);
  'link': (Buffer);
}
