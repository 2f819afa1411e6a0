// Original file: proto/tokenizer.proto


export interface RevokeTenantKekRequest {
  'tenant_id'?: (number);
  'tenant_salt'?: (Buffer | Uint8Array | string);
  'kek_label'?: (string);
  'kek_wrapped'?: (Buffer | Uint8Array | string);
}

export interface RevokeTenantKekRequest__Output {
  'tenant_id': (number);
  'tenant_salt': (Buffer);
  'kek_label': (string);
  'kek_wrapped': (Buffer);
}
