// Original file: proto/tokenizer.proto


/**
 * Exactly one of `shares` and `encrypted_shares` is filled: with STRONGROOM_RECOVERY_RECIPIENTS set for the
 * tokenizer, share n is an armored age file encrypted to recipient n and no share is in clear.
 */
export interface ResplitResponse {
  'shares'?: (string)[];
  'encrypted_shares'?: (string)[];
  'recipients'?: (string)[];
  'keyring_id'?: (string);
}

/**
 * Exactly one of `shares` and `encrypted_shares` is filled: with STRONGROOM_RECOVERY_RECIPIENTS set for the
 * tokenizer, share n is an armored age file encrypted to recipient n and no share is in clear.
 */
export interface ResplitResponse__Output {
  'shares': (string)[];
  'encrypted_shares': (string)[];
  'recipients': (string)[];
  'keyring_id': (string);
}
