// Original file: proto/tokenizer.proto


export interface RotateResponse {
  'active'?: (number);
}

export interface RotateResponse__Output {
  'active': (number);
}
