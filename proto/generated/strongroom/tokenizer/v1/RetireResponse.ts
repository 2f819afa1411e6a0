// Original file: proto/tokenizer.proto


export interface RetireResponse {
  'versions'?: (number)[];
}

export interface RetireResponse__Output {
  'versions': (number)[];
}
