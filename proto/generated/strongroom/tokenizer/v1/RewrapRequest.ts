// Original file: proto/tokenizer.proto


export interface RewrapRequest {
  /**
   * Hex-encoded shares as shown at the keyring's first start.
   */
  'shares'?: (string)[];
}

export interface RewrapRequest__Output {
  /**
   * Hex-encoded shares as shown at the keyring's first start.
   */
  'shares': (string)[];
}
