// Original file: proto/tokenizer.proto


export interface RetireRequest {
  'version'?: (number);
}

export interface RetireRequest__Output {
  'version': (number);
}
