// Original file: proto/tokenizer.proto

import type { TokenFormat as _strongroom_tokenizer_v1_TokenFormat, TokenFormat__Output as _strongroom_tokenizer_v1_TokenFormat__Output } from '../../../strongroom/tokenizer/v1/TokenFormat.js';

/**
 * The tweak binds a token to tenant, format and attempt: one value gives different tokens in different
 * tenants, and the api asks again with a higher attempt when a token collides with another in the tenant.
 */
export interface TokenizeItem {
  'format'?: (_strongroom_tokenizer_v1_TokenFormat);
  'value'?: (string);
  'attempt'?: (number);
}

/**
 * The tweak binds a token to tenant, format and attempt: one value gives different tokens in different
 * tenants, and the api asks again with a higher attempt when a token collides with another in the tenant.
 */
export interface TokenizeItem__Output {
  'format': (_strongroom_tokenizer_v1_TokenFormat__Output);
  'value': (string);
  'attempt': (number);
}
