// Original file: proto/tokenizer.proto


export interface MakeTenantKeyRequest {
  'tenant_id'?: (number);
  'tenant_salt'?: (Buffer | Uint8Array | string);
  'kek_label'?: (string);
  /**
   * A move: the tenant key as wrapped now, and the object that wraps it.
   */
  'from_label'?: (string);
  'from_wrapped'?: (Buffer | Uint8Array | string);
}

export interface MakeTenantKeyRequest__Output {
  'tenant_id': (number);
  'tenant_salt': (Buffer);
  'kek_label': (string);
  /**
   * A move: the tenant key as wrapped now, and the object that wraps it.
   */
  'from_label': (string);
  'from_wrapped': (Buffer);
}
