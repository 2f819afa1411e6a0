// Original file: proto/tokenizer.proto


/**
 * AAD binds a ciphertext to tenant, table and row: moved to another row, it fails to open.
 */
export interface SealItem {
  'table'?: (string);
  'row_id'?: (string);
  'plaintext'?: (Buffer | Uint8Array | string);
}

/**
 * AAD binds a ciphertext to tenant, table and row: moved to another row, it fails to open.
 */
export interface SealItem__Output {
  'table': (string);
  'row_id': (string);
  'plaintext': (Buffer);
}
