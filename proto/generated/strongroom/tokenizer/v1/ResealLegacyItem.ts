// Original file: proto/tokenizer.proto


/**
 * One value sealed by a version before per-person keys, and where it goes now.
 */
export interface ResealLegacyItem {
  'from_table'?: (string);
  'from_row_id'?: (string);
  'ciphertext'?: (Buffer | Uint8Array | string);
  'table'?: (string);
  'row_id'?: (string);
  /**
   * The person (or the tenant's own subject) whose data key seals it; that key is wrapped_key, or made in this call
   * when the subject is one of new_key_subjects (wrapped_key then empty).
   */
  'subject'?: (string);
  'wrapped_key'?: (Buffer | Uint8Array | string);
}

/**
 * One value sealed by a version before per-person keys, and where it goes now.
 */
export interface ResealLegacyItem__Output {
  'from_table': (string);
  'from_row_id': (string);
  'ciphertext': (Buffer);
  'table': (string);
  'row_id': (string);
  /**
   * The person (or the tenant's own subject) whose data key seals it; that key is wrapped_key, or made in this call
   * when the subject is one of new_key_subjects (wrapped_key then empty).
   */
  'subject': (string);
  'wrapped_key': (Buffer);
}
