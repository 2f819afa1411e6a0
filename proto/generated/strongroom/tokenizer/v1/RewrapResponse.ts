// Original file: proto/tokenizer.proto


export interface RewrapResponse {
  /**
   * The new wrapping key, 64 hex characters. Set it as STRONGROOM_WRAPPING_KEY before the next restart.
   */
  'wrapping_key'?: (string);
}

export interface RewrapResponse__Output {
  /**
   * The new wrapping key, 64 hex characters. Set it as STRONGROOM_WRAPPING_KEY before the next restart.
   */
  'wrapping_key': (string);
}
