// Original file: proto/tokenizer.proto


export interface OpenItem {
  'table'?: (string);
  'row_id'?: (string);
  'ciphertext'?: (Buffer | Uint8Array | string);
  'wrapped_key'?: (Buffer | Uint8Array | string);
  'subject'?: (string);
}

export interface OpenItem__Output {
  'table': (string);
  'row_id': (string);
  'ciphertext': (Buffer);
  'wrapped_key': (Buffer);
  'subject': (string);
}
