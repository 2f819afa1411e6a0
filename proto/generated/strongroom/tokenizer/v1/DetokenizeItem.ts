// Original file: proto/tokenizer.proto

import type { TokenFormat as _strongroom_tokenizer_v1_TokenFormat, TokenFormat__Output as _strongroom_tokenizer_v1_TokenFormat__Output } from '../../../strongroom/tokenizer/v1/TokenFormat.js';

export interface DetokenizeItem {
  'format'?: (_strongroom_tokenizer_v1_TokenFormat);
  'token'?: (string);
  /**
   * The attempt TokenResult reported for this token.
   */
  'attempt'?: (number);
}

export interface DetokenizeItem__Output {
  'format': (_strongroom_tokenizer_v1_TokenFormat__Output);
  'token': (string);
  /**
   * The attempt TokenResult reported for this token.
   */
  'attempt': (number);
}
