// Original file: proto/tokenizer.proto


export interface TenantKekStatusRequest {
  'labels'?: (string)[];
}

export interface TenantKekStatusRequest__Output {
  'labels': (string)[];
}
