// Original file: proto/tokenizer.proto

import type { Batch as _strongroom_tokenizer_v1_Batch, Batch__Output as _strongroom_tokenizer_v1_Batch__Output } from '../../../strongroom/tokenizer/v1/Batch.js';
import type { Long } from '@grpc/proto-loader';

export interface RunRequest {
  /**
   * the caller's, echoed in the reply
   */
  'id'?: (number | string | Long);
  'batch'?: (_strongroom_tokenizer_v1_Batch | null);
  /**
   * the batch is stopped (DEADLINE_EXCEEDED) this long after it arrives
   */
  'timeout_ms'?: (number);
  /**
   * A traced request's W3C trace context (the `traceparent` header's value), or empty: the stream's gRPC metadata is
   * set once for every batch it carries, so a batch's own context travels with it. Ids and a flag only.
   */
  'traceparent'?: (string);
}

export interface RunRequest__Output {
  /**
   * the caller's, echoed in the reply
   */
  'id': (string);
  'batch': (_strongroom_tokenizer_v1_Batch__Output | null);
  /**
   * the batch is stopped (DEADLINE_EXCEEDED) this long after it arrives
   */
  'timeout_ms': (number);
  /**
   * A traced request's W3C trace context (the `traceparent` header's value), or empty: the stream's gRPC metadata is
   * set once for every batch it carries, so a batch's own context travels with it. Ids and a flag only.
   */
  'traceparent': (string);
}
