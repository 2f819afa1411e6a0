// Original file: proto/tokenizer.proto


export interface TenantKekStatusResponse {
  /**
   * One per label, in order: "up", "missing" or "unavailable".
   */
  'states'?: (string)[];
}

export interface TenantKekStatusResponse__Output {
  /**
   * One per label, in order: "up", "missing" or "unavailable".
   */
  'states': (string)[];
}
