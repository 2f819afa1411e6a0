// Original file: proto/tokenizer.proto


export interface ChainAuditResponse {
  /**
   * One 32-byte link per canonical text, in order.
   */
  'links'?: (Buffer | Uint8Array | string)[];
}

export interface ChainAuditResponse__Output {
  /**
   * One 32-byte link per canonical text, in order.
   */
  'links': (Buffer)[];
}
