// Original file: proto/tokenizer.proto


export interface ResealLegacyResponse {
  /**
   * One per new_key_subjects, in order, wrapped under the active master version.
   */
  'wrapped_keys'?: (Buffer | Uint8Array | string)[];
  /**
   * One per item, in order.
   */
  'resealed'?: (Buffer | Uint8Array | string)[];
}

export interface ResealLegacyResponse__Output {
  /**
   * One per new_key_subjects, in order, wrapped under the active master version.
   */
  'wrapped_keys': (Buffer)[];
  /**
   * One per item, in order.
   */
  'resealed': (Buffer)[];
}
