// Original file: proto/tokenizer.proto

import type { TokenResult as _strongroom_tokenizer_v1_TokenResult, TokenResult__Output as _strongroom_tokenizer_v1_TokenResult__Output } from '../../../strongroom/tokenizer/v1/TokenResult.js';
import type { ChainLinks as _strongroom_tokenizer_v1_ChainLinks, ChainLinks__Output as _strongroom_tokenizer_v1_ChainLinks__Output } from '../../../strongroom/tokenizer/v1/ChainLinks.js';

export interface BatchResult {
  /**
   * HMAC-SHA256 (32 bytes) per hash item; empty when the normalised value is empty (no index).
   */
  'hash'?: (Buffer | Uint8Array | string)[];
  /**
   * format byte, key version, nonce, ciphertext, tag per seal item; a personal item (with a subject) is format
   * byte 0x03, a 24-byte salt, ciphertext, tag (sealed under a one-time key derived from the person's data key and
   * the salt, tokenizer/envelope.ts); 0x02 (nonce, ciphertext, tag under the data key itself) still opens.
   */
  'sealed'?: (Buffer | Uint8Array | string)[];
  /**
   * plaintext per open item.
   */
  'opened'?: (Buffer | Uint8Array | string)[];
  /**
   * one per tokenize item.
   */
  'tokens'?: (_strongroom_tokenizer_v1_TokenResult)[];
  /**
   * the original value per detokenize item, normalised: a card without spaces or dashes, an email address
   * trimmed and lowercased.
   */
  'detokenized'?: (string)[];
  /**
   * one per new_key_subjects item: the data key wrapped under the tenant's key (active master version).
   */
  'wrapped_keys'?: (Buffer | Uint8Array | string)[];
  /**
   * one per rewrap_keys item, wrapped under the active master version.
   */
  'rewrapped_keys'?: (Buffer | Uint8Array | string)[];
  /**
   * one per chain item: its events' keyed links.
   */
  'chained'?: (_strongroom_tokenizer_v1_ChainLinks)[];
  /**
   * one per queue_mac item: 32 bytes.
   */
  'queue_macs'?: (Buffer | Uint8Array | string)[];
}

export interface BatchResult__Output {
  /**
   * HMAC-SHA256 (32 bytes) per hash item; empty when the normalised value is empty (no index).
   */
  'hash': (Buffer)[];
  /**
   * format byte, key version, nonce, ciphertext, tag per seal item; a personal item (with a subject) is format
   * byte 0x03, a 24-byte salt, ciphertext, tag (sealed under a one-time key derived from the person's data key and
   * the salt, tokenizer/envelope.ts); 0x02 (nonce, ciphertext, tag under the data key itself) still opens.
   */
  'sealed': (Buffer)[];
  /**
   * plaintext per open item.
   */
  'opened': (Buffer)[];
  /**
   * one per tokenize item.
   */
  'tokens': (_strongroom_tokenizer_v1_TokenResult__Output)[];
  /**
   * the original value per detokenize item, normalised: a card without spaces or dashes, an email address
   * trimmed and lowercased.
   */
  'detokenized': (string)[];
  /**
   * one per new_key_subjects item: the data key wrapped under the tenant's key (active master version).
   */
  'wrapped_keys': (Buffer)[];
  /**
   * one per rewrap_keys item, wrapped under the active master version.
   */
  'rewrapped_keys': (Buffer)[];
  /**
   * one per chain item: its events' keyed links.
   */
  'chained': (_strongroom_tokenizer_v1_ChainLinks__Output)[];
  /**
   * one per queue_mac item: 32 bytes.
   */
  'queue_macs': (Buffer)[];
}
