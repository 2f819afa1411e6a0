// Original file: proto/tokenizer.proto

import type { Long } from '@grpc/proto-loader';

export interface KeyringInfoResponse {
  'versions'?: (number)[];
  'active'?: (number);
  /**
   * AES-GCM seals made under each version's keys (key wraps, the sentinel), kept across restarts beside the
   * keyring, keyed by version. Seals under data keys are not counted: each uses a one-time derived key (0x03).
   */
  'seals'?: ({[key: number]: number | string | Long});
  /**
   * A stable public id of the keyring: a one-way hash of its first key version (never retired), never a secret.
   */
  'keyring_id'?: (string);
  /**
   * The public half of the key that signs audit checkpoints (Ed25519, SPKI PEM). Never changes with rotation.
   */
  'audit_public_key'?: (string);
}

export interface KeyringInfoResponse__Output {
  'versions': (number)[];
  'active': (number);
  /**
   * AES-GCM seals made under each version's keys (key wraps, the sentinel), kept across restarts beside the
   * keyring, keyed by version. Seals under data keys are not counted: each uses a one-time derived key (0x03).
   */
  'seals': ({[key: number]: string});
  /**
   * A stable public id of the keyring: a one-way hash of its first key version (never retired), never a secret.
   */
  'keyring_id': (string);
  /**
   * The public half of the key that signs audit checkpoints (Ed25519, SPKI PEM). Never changes with rotation.
   */
  'audit_public_key': (string);
}
