// Original file: proto/tokenizer.proto


export interface RevokeTenantKekResponse {
  'destroyed'?: (boolean);
}

export interface RevokeTenantKekResponse__Output {
  'destroyed': (boolean);
}
