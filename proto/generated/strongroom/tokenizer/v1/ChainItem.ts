// Original file: proto/tokenizer.proto

import type { Long } from '@grpc/proto-loader';

export interface ChainItem {
  /**
   * Empty before the first event of a trail.
   */
  'previous'?: (Buffer | Uint8Array | string);
  'first_seq'?: (number | string | Long);
  'canonical'?: (string)[];
}

export interface ChainItem__Output {
  /**
   * Empty before the first event of a trail.
   */
  'previous': (Buffer);
  'first_seq': (string);
  'canonical': (string)[];
}
