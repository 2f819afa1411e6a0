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
  /**
   * Set when the item's details_sealed_as were joined to its texts (a tokenizer before them links the texts as sent:
   * the caller then throws the links away).
   */
  'details_joined'?: (boolean);
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
  /**
   * Set when the item's details_sealed_as were joined to its texts (a tokenizer before them links the texts as sent:
   * the caller then throws the links away).
   */
  'details_joined': (boolean);
}
