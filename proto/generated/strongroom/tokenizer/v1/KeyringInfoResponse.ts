// Original file: proto/tokenizer.proto


export interface KeyringInfoResponse {
  'versions'?: (number)[];
  'active'?: (number);
}

export interface KeyringInfoResponse__Output {
  'versions': (number)[];
  'active': (number);
}
