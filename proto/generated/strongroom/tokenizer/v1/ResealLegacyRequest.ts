// Original file: proto/tokenizer.proto

import type { ResealLegacyItem as _strongroom_tokenizer_v1_ResealLegacyItem, ResealLegacyItem__Output as _strongroom_tokenizer_v1_ResealLegacyItem__Output } from '../../../strongroom/tokenizer/v1/ResealLegacyItem.js';

export interface ResealLegacyRequest {
  'tenant_id'?: (number);
  /**
   * The tenant's salt today (empty for a tenant made before salts): new keys are wrapped under its derivation.
   */
  'tenant_salt'?: (Buffer | Uint8Array | string);
  'new_key_subjects'?: (string)[];
  'items'?: (_strongroom_tokenizer_v1_ResealLegacyItem)[];
}

export interface ResealLegacyRequest__Output {
  'tenant_id': (number);
  /**
   * The tenant's salt today (empty for a tenant made before salts): new keys are wrapped under its derivation.
   */
  'tenant_salt': (Buffer);
  'new_key_subjects': (string)[];
  'items': (_strongroom_tokenizer_v1_ResealLegacyItem__Output)[];
}
