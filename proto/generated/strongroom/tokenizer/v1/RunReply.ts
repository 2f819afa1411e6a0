// Original file: proto/tokenizer.proto

import type { BatchResult as _strongroom_tokenizer_v1_BatchResult, BatchResult__Output as _strongroom_tokenizer_v1_BatchResult__Output } from '../../../strongroom/tokenizer/v1/BatchResult.js';
import type { Long } from '@grpc/proto-loader';

export interface RunReply {
  'id'?: (number | string | Long);
  /**
   * set when code is 0 (OK)
   */
  'result'?: (_strongroom_tokenizer_v1_BatchResult | null);
  /**
   * a gRPC status code, as Run would end with
   */
  'code'?: (number);
  /**
   * the tokenizer's own words for a failure, never an item's content
   */
  'details'?: (string);
}

export interface RunReply__Output {
  'id': (string);
  /**
   * set when code is 0 (OK)
   */
  'result': (_strongroom_tokenizer_v1_BatchResult__Output | null);
  /**
   * a gRPC status code, as Run would end with
   */
  'code': (number);
  /**
   * the tokenizer's own words for a failure, never an item's content
   */
  'details': (string);
}
