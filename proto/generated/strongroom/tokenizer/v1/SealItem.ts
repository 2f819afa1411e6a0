// Original file: proto/tokenizer.proto


/**
 * AAD binds a ciphertext to tenant, table and row: moved to another row, it fails to open.
 * With a `subject` (a person's token, or the nil UUID for the tenant's own data key) the item is personal: it is sealed under that person's data key, which the
 * tokenizer unwraps from `wrapped_key` in the same call (or, when sealing with `wrapped_key` empty, the key made
 * for that subject by `new_key_subjects` of the same batch), and the AAD binds the person too. A person's
 * ciphertext never opens without their wrapped key: erasing the key erases everything sealed under it.
 */
export interface SealItem {
  'table'?: (string);
  'row_id'?: (string);
  'plaintext'?: (Buffer | Uint8Array | string);
  'wrapped_key'?: (Buffer | Uint8Array | string);
  'subject'?: (string);
}

/**
 * AAD binds a ciphertext to tenant, table and row: moved to another row, it fails to open.
 * With a `subject` (a person's token, or the nil UUID for the tenant's own data key) the item is personal: it is sealed under that person's data key, which the
 * tokenizer unwraps from `wrapped_key` in the same call (or, when sealing with `wrapped_key` empty, the key made
 * for that subject by `new_key_subjects` of the same batch), and the AAD binds the person too. A person's
 * ciphertext never opens without their wrapped key: erasing the key erases everything sealed under it.
 */
export interface SealItem__Output {
  'table': (string);
  'row_id': (string);
  'plaintext': (Buffer);
  'wrapped_key': (Buffer);
  'subject': (string);
}
