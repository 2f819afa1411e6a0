// Original file: proto/tokenizer.proto


export interface AuditHighWaterRequest {
  'tenant_id'?: (number);
  'tenant_salt'?: (Buffer | Uint8Array | string);
}

export interface AuditHighWaterRequest__Output {
  'tenant_id': (number);
  'tenant_salt': (Buffer);
}
