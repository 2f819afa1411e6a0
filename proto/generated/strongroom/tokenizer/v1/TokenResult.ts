// Original file: proto/tokenizer.proto


export interface TokenResult {
  'token'?: (string);
  /**
   * The attempt that produced the token: the one asked for, or the next one the format allows when that
   * one is not allowed (CREDITCARD) or gave back the input. Detokenizing needs it.
   */
  'attempt'?: (number);
  /**
   * The token's lookup hash: what a DEDUPE hash item of "base\0" + token gives, so a token can be stored
   * indexed by its hash in the same call that makes it.
   */
  'index'?: (Buffer | Uint8Array | string);
}

export interface TokenResult__Output {
  'token': (string);
  /**
   * The attempt that produced the token: the one asked for, or the next one the format allows when that
   * one is not allowed (CREDITCARD) or gave back the input. Detokenizing needs it.
   */
  'attempt': (number);
  /**
   * The token's lookup hash: what a DEDUPE hash item of "base\0" + token gives, so a token can be stored
   * indexed by its hash in the same call that makes it.
   */
  'index': (Buffer);
}
