// Original file: proto/tokenizer.proto


export interface ResplitRequest {
  /**
   * Hex-encoded current shares, as keyring:init (or an earlier resplit) issued them.
   */
  'shares'?: (string)[];
}

export interface ResplitRequest__Output {
  /**
   * Hex-encoded current shares, as keyring:init (or an earlier resplit) issued them.
   */
  'shares': (string)[];
}
