// Original file: proto/tokenizer.proto


export interface ChainLinks {
  /**
   * One 32-byte link per canonical text, in order.
   */
  'links'?: (Buffer | Uint8Array | string)[];
}

export interface ChainLinks__Output {
  /**
   * One 32-byte link per canonical text, in order.
   */
  'links': (Buffer)[];
}
