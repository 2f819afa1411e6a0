// Original file: proto/tokenizer.proto


export interface ChainLinks {
  /**
   * One 32-byte link per canonical text not refused, in order.
   */
  'links'?: (Buffer | Uint8Array | string)[];
  /**
   * Indexes (into canonical) of queued events refused: not linked.
   */
  'refused'?: (number)[];
}

export interface ChainLinks__Output {
  /**
   * One 32-byte link per canonical text not refused, in order.
   */
  'links': (Buffer)[];
  /**
   * Indexes (into canonical) of queued events refused: not linked.
   */
  'refused': (number)[];
}
