// Original file: proto/tokenizer.proto

import type { Long } from '@grpc/proto-loader';

export interface KeyringInfoResponse {
  'versions'?: (number)[];
  'active'?: (number);
  /**
   * AES-GCM seals made under each version's keys since the tokenizer started, keyed by version.
   */
  'seals'?: ({[key: number]: number | string | Long});
  /**
   * A stable public id of the keyring (a hash of its first key version's identity, never a secret).
   */
  'keyring_id'?: (string);
}

export interface KeyringInfoResponse__Output {
  'versions': (number)[];
  'active': (number);
  /**
   * AES-GCM seals made under each version's keys since the tokenizer started, keyed by version.
   */
  'seals': ({[key: number]: string});
  /**
   * A stable public id of the keyring (a hash of its first key version's identity, never a secret).
   */
  'keyring_id': (string);
}
