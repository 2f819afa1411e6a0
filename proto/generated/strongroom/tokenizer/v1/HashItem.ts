// Original file: proto/tokenizer.proto

import type { IndexKind as _strongroom_tokenizer_v1_IndexKind, IndexKind__Output as _strongroom_tokenizer_v1_IndexKind__Output } from '../../../strongroom/tokenizer/v1/IndexKind.js';

export interface HashItem {
  'kind'?: (_strongroom_tokenizer_v1_IndexKind);
  'value'?: (string);
}

export interface HashItem__Output {
  'kind': (_strongroom_tokenizer_v1_IndexKind__Output);
  'value': (string);
}
