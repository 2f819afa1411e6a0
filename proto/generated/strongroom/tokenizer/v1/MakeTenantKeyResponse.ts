// Original file: proto/tokenizer.proto


export interface MakeTenantKeyResponse {
  /**
   * IV (12) ‖ ciphertext ‖ GCM tag (16), made inside the HSM; the tenant key itself never leaves the tokenizer.
   */
  'kek_wrapped'?: (Buffer | Uint8Array | string);
}

export interface MakeTenantKeyResponse__Output {
  /**
   * IV (12) ‖ ciphertext ‖ GCM tag (16), made inside the HSM; the tenant key itself never leaves the tokenizer.
   */
  'kek_wrapped': (Buffer);
}
