// Original file: proto/tokenizer.proto


export interface OpenItem {
  'table'?: (string);
  'row_id'?: (string);
  'ciphertext'?: (Buffer | Uint8Array | string);
}

export interface OpenItem__Output {
  'table': (string);
  'row_id': (string);
  'ciphertext': (Buffer);
}
