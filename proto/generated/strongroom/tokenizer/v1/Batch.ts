// Original file: proto/tokenizer.proto

import type { HashItem as _strongroom_tokenizer_v1_HashItem, HashItem__Output as _strongroom_tokenizer_v1_HashItem__Output } from '../../../strongroom/tokenizer/v1/HashItem.js';
import type { SealItem as _strongroom_tokenizer_v1_SealItem, SealItem__Output as _strongroom_tokenizer_v1_SealItem__Output } from '../../../strongroom/tokenizer/v1/SealItem.js';
import type { OpenItem as _strongroom_tokenizer_v1_OpenItem, OpenItem__Output as _strongroom_tokenizer_v1_OpenItem__Output } from '../../../strongroom/tokenizer/v1/OpenItem.js';
import type { TokenizeItem as _strongroom_tokenizer_v1_TokenizeItem, TokenizeItem__Output as _strongroom_tokenizer_v1_TokenizeItem__Output } from '../../../strongroom/tokenizer/v1/TokenizeItem.js';
import type { DetokenizeItem as _strongroom_tokenizer_v1_DetokenizeItem, DetokenizeItem__Output as _strongroom_tokenizer_v1_DetokenizeItem__Output } from '../../../strongroom/tokenizer/v1/DetokenizeItem.js';
import type { RewrapKeyItem as _strongroom_tokenizer_v1_RewrapKeyItem, RewrapKeyItem__Output as _strongroom_tokenizer_v1_RewrapKeyItem__Output } from '../../../strongroom/tokenizer/v1/RewrapKeyItem.js';
import type { ChainItem as _strongroom_tokenizer_v1_ChainItem, ChainItem__Output as _strongroom_tokenizer_v1_ChainItem__Output } from '../../../strongroom/tokenizer/v1/ChainItem.js';
import type { QueueMacItem as _strongroom_tokenizer_v1_QueueMacItem, QueueMacItem__Output as _strongroom_tokenizer_v1_QueueMacItem__Output } from '../../../strongroom/tokenizer/v1/QueueMacItem.js';

export interface Batch {
  /**
   * must be >= 1
   */
  'tenant_id'?: (number);
  'hash'?: (_strongroom_tokenizer_v1_HashItem)[];
  'seal'?: (_strongroom_tokenizer_v1_SealItem)[];
  'open'?: (_strongroom_tokenizer_v1_OpenItem)[];
  'tokenize'?: (_strongroom_tokenizer_v1_TokenizeItem)[];
  'detokenize'?: (_strongroom_tokenizer_v1_DetokenizeItem)[];
  /**
   * A new random data key per subject, returned wrapped (never in the clear) in `wrapped_keys`.
   */
  'new_key_subjects'?: (string)[];
  'rewrap_keys'?: (_strongroom_tokenizer_v1_RewrapKeyItem)[];
  /**
   * The tenant's random key salt (stored with the tenant, deleted with it): its subkeys derive from it, so keys
   * are never shared with a tenant that once had the same id. Empty for tenants made before salts.
   */
  'tenant_salt'?: (Buffer | Uint8Array | string);
  /**
   * Runs of audit events to link, as ChainAudit does (a chainer's batch riding with other callers' items).
   */
  'chain'?: (_strongroom_tokenizer_v1_ChainItem)[];
  /**
   * Queued audit events to authenticate (a write's, as it seals them): answered in `queue_macs`.
   */
  'queue_mac'?: (_strongroom_tokenizer_v1_QueueMacItem)[];
  /**
   * A tenant with its own key-encryption key: the HSM object's label and the tenant key it wraps (MakeTenantKey).
   * New data keys (and rewrap_keys) are then wrapped under the tenant key (a 0x04 wrapped key), and keys wrapped under
   * a master version (0x01, before a migration finished) still open. A batch that needs a data key (seal or open with
   * a subject, new_key_subjects, rewrap_keys, tokenize, detokenize) while the tenant key cannot be opened (the object
   * revoked, removed, or the HSM away) fails as a whole with PERMISSION_DENIED: the api's 503 `The tenant's key is
   * unavailable`. Hashes and audit links need no data key and are served.
   */
  'kek_label'?: (string);
  'kek_wrapped'?: (Buffer | Uint8Array | string);
}

export interface Batch__Output {
  /**
   * must be >= 1
   */
  'tenant_id': (number);
  'hash': (_strongroom_tokenizer_v1_HashItem__Output)[];
  'seal': (_strongroom_tokenizer_v1_SealItem__Output)[];
  'open': (_strongroom_tokenizer_v1_OpenItem__Output)[];
  'tokenize': (_strongroom_tokenizer_v1_TokenizeItem__Output)[];
  'detokenize': (_strongroom_tokenizer_v1_DetokenizeItem__Output)[];
  /**
   * A new random data key per subject, returned wrapped (never in the clear) in `wrapped_keys`.
   */
  'new_key_subjects': (string)[];
  'rewrap_keys': (_strongroom_tokenizer_v1_RewrapKeyItem__Output)[];
  /**
   * The tenant's random key salt (stored with the tenant, deleted with it): its subkeys derive from it, so keys
   * are never shared with a tenant that once had the same id. Empty for tenants made before salts.
   */
  'tenant_salt': (Buffer);
  /**
   * Runs of audit events to link, as ChainAudit does (a chainer's batch riding with other callers' items).
   */
  'chain': (_strongroom_tokenizer_v1_ChainItem__Output)[];
  /**
   * Queued audit events to authenticate (a write's, as it seals them): answered in `queue_macs`.
   */
  'queue_mac': (_strongroom_tokenizer_v1_QueueMacItem__Output)[];
  /**
   * A tenant with its own key-encryption key: the HSM object's label and the tenant key it wraps (MakeTenantKey).
   * New data keys (and rewrap_keys) are then wrapped under the tenant key (a 0x04 wrapped key), and keys wrapped under
   * a master version (0x01, before a migration finished) still open. A batch that needs a data key (seal or open with
   * a subject, new_key_subjects, rewrap_keys, tokenize, detokenize) while the tenant key cannot be opened (the object
   * revoked, removed, or the HSM away) fails as a whole with PERMISSION_DENIED: the api's 503 `The tenant's key is
   * unavailable`. Hashes and audit links need no data key and are served.
   */
  'kek_label': (string);
  'kek_wrapped': (Buffer);
}
