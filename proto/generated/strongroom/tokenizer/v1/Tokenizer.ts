// Original file: proto/tokenizer.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AuditHighWaterRequest as _strongroom_tokenizer_v1_AuditHighWaterRequest, AuditHighWaterRequest__Output as _strongroom_tokenizer_v1_AuditHighWaterRequest__Output } from '../../../strongroom/tokenizer/v1/AuditHighWaterRequest.js';
import type { AuditHighWaterResponse as _strongroom_tokenizer_v1_AuditHighWaterResponse, AuditHighWaterResponse__Output as _strongroom_tokenizer_v1_AuditHighWaterResponse__Output } from '../../../strongroom/tokenizer/v1/AuditHighWaterResponse.js';
import type { Batch as _strongroom_tokenizer_v1_Batch, Batch__Output as _strongroom_tokenizer_v1_Batch__Output } from '../../../strongroom/tokenizer/v1/Batch.js';
import type { BatchResult as _strongroom_tokenizer_v1_BatchResult, BatchResult__Output as _strongroom_tokenizer_v1_BatchResult__Output } from '../../../strongroom/tokenizer/v1/BatchResult.js';
import type { ChainAuditRequest as _strongroom_tokenizer_v1_ChainAuditRequest, ChainAuditRequest__Output as _strongroom_tokenizer_v1_ChainAuditRequest__Output } from '../../../strongroom/tokenizer/v1/ChainAuditRequest.js';
import type { ChainAuditResponse as _strongroom_tokenizer_v1_ChainAuditResponse, ChainAuditResponse__Output as _strongroom_tokenizer_v1_ChainAuditResponse__Output } from '../../../strongroom/tokenizer/v1/ChainAuditResponse.js';
import type { KeyringInfoRequest as _strongroom_tokenizer_v1_KeyringInfoRequest, KeyringInfoRequest__Output as _strongroom_tokenizer_v1_KeyringInfoRequest__Output } from '../../../strongroom/tokenizer/v1/KeyringInfoRequest.js';
import type { KeyringInfoResponse as _strongroom_tokenizer_v1_KeyringInfoResponse, KeyringInfoResponse__Output as _strongroom_tokenizer_v1_KeyringInfoResponse__Output } from '../../../strongroom/tokenizer/v1/KeyringInfoResponse.js';
import type { MakeTenantKeyRequest as _strongroom_tokenizer_v1_MakeTenantKeyRequest, MakeTenantKeyRequest__Output as _strongroom_tokenizer_v1_MakeTenantKeyRequest__Output } from '../../../strongroom/tokenizer/v1/MakeTenantKeyRequest.js';
import type { MakeTenantKeyResponse as _strongroom_tokenizer_v1_MakeTenantKeyResponse, MakeTenantKeyResponse__Output as _strongroom_tokenizer_v1_MakeTenantKeyResponse__Output } from '../../../strongroom/tokenizer/v1/MakeTenantKeyResponse.js';
import type { ResealLegacyRequest as _strongroom_tokenizer_v1_ResealLegacyRequest, ResealLegacyRequest__Output as _strongroom_tokenizer_v1_ResealLegacyRequest__Output } from '../../../strongroom/tokenizer/v1/ResealLegacyRequest.js';
import type { ResealLegacyResponse as _strongroom_tokenizer_v1_ResealLegacyResponse, ResealLegacyResponse__Output as _strongroom_tokenizer_v1_ResealLegacyResponse__Output } from '../../../strongroom/tokenizer/v1/ResealLegacyResponse.js';
import type { ResplitRequest as _strongroom_tokenizer_v1_ResplitRequest, ResplitRequest__Output as _strongroom_tokenizer_v1_ResplitRequest__Output } from '../../../strongroom/tokenizer/v1/ResplitRequest.js';
import type { ResplitResponse as _strongroom_tokenizer_v1_ResplitResponse, ResplitResponse__Output as _strongroom_tokenizer_v1_ResplitResponse__Output } from '../../../strongroom/tokenizer/v1/ResplitResponse.js';
import type { RetireRequest as _strongroom_tokenizer_v1_RetireRequest, RetireRequest__Output as _strongroom_tokenizer_v1_RetireRequest__Output } from '../../../strongroom/tokenizer/v1/RetireRequest.js';
import type { RetireResponse as _strongroom_tokenizer_v1_RetireResponse, RetireResponse__Output as _strongroom_tokenizer_v1_RetireResponse__Output } from '../../../strongroom/tokenizer/v1/RetireResponse.js';
import type { RevokeTenantKekRequest as _strongroom_tokenizer_v1_RevokeTenantKekRequest, RevokeTenantKekRequest__Output as _strongroom_tokenizer_v1_RevokeTenantKekRequest__Output } from '../../../strongroom/tokenizer/v1/RevokeTenantKekRequest.js';
import type { RevokeTenantKekResponse as _strongroom_tokenizer_v1_RevokeTenantKekResponse, RevokeTenantKekResponse__Output as _strongroom_tokenizer_v1_RevokeTenantKekResponse__Output } from '../../../strongroom/tokenizer/v1/RevokeTenantKekResponse.js';
import type { RewrapRequest as _strongroom_tokenizer_v1_RewrapRequest, RewrapRequest__Output as _strongroom_tokenizer_v1_RewrapRequest__Output } from '../../../strongroom/tokenizer/v1/RewrapRequest.js';
import type { RewrapResponse as _strongroom_tokenizer_v1_RewrapResponse, RewrapResponse__Output as _strongroom_tokenizer_v1_RewrapResponse__Output } from '../../../strongroom/tokenizer/v1/RewrapResponse.js';
import type { RotateRequest as _strongroom_tokenizer_v1_RotateRequest, RotateRequest__Output as _strongroom_tokenizer_v1_RotateRequest__Output } from '../../../strongroom/tokenizer/v1/RotateRequest.js';
import type { RotateResponse as _strongroom_tokenizer_v1_RotateResponse, RotateResponse__Output as _strongroom_tokenizer_v1_RotateResponse__Output } from '../../../strongroom/tokenizer/v1/RotateResponse.js';
import type { RunReply as _strongroom_tokenizer_v1_RunReply, RunReply__Output as _strongroom_tokenizer_v1_RunReply__Output } from '../../../strongroom/tokenizer/v1/RunReply.js';
import type { RunRequest as _strongroom_tokenizer_v1_RunRequest, RunRequest__Output as _strongroom_tokenizer_v1_RunRequest__Output } from '../../../strongroom/tokenizer/v1/RunRequest.js';
import type { SignCheckpointRequest as _strongroom_tokenizer_v1_SignCheckpointRequest, SignCheckpointRequest__Output as _strongroom_tokenizer_v1_SignCheckpointRequest__Output } from '../../../strongroom/tokenizer/v1/SignCheckpointRequest.js';
import type { SignCheckpointResponse as _strongroom_tokenizer_v1_SignCheckpointResponse, SignCheckpointResponse__Output as _strongroom_tokenizer_v1_SignCheckpointResponse__Output } from '../../../strongroom/tokenizer/v1/SignCheckpointResponse.js';
import type { TenantKekStatusRequest as _strongroom_tokenizer_v1_TenantKekStatusRequest, TenantKekStatusRequest__Output as _strongroom_tokenizer_v1_TenantKekStatusRequest__Output } from '../../../strongroom/tokenizer/v1/TenantKekStatusRequest.js';
import type { TenantKekStatusResponse as _strongroom_tokenizer_v1_TenantKekStatusResponse, TenantKekStatusResponse__Output as _strongroom_tokenizer_v1_TenantKekStatusResponse__Output } from '../../../strongroom/tokenizer/v1/TenantKekStatusResponse.js';

export interface TokenizerClient extends grpc.Client {
  /**
   * The newest head of the tenant's trail this tokenizer linked from, was told committed, or signed (kept beside the
   * keyring across restarts): a stored trail that ends before it was cut. seq 0 when it knows of none.
   */
  AuditHighWater(argument: _strongroom_tokenizer_v1_AuditHighWaterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_AuditHighWaterResponse__Output>): grpc.ClientUnaryCall;
  AuditHighWater(argument: _strongroom_tokenizer_v1_AuditHighWaterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_AuditHighWaterResponse__Output>): grpc.ClientUnaryCall;
  AuditHighWater(argument: _strongroom_tokenizer_v1_AuditHighWaterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_AuditHighWaterResponse__Output>): grpc.ClientUnaryCall;
  AuditHighWater(argument: _strongroom_tokenizer_v1_AuditHighWaterRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_AuditHighWaterResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The newest head of the tenant's trail this tokenizer linked from, was told committed, or signed (kept beside the
   * keyring across restarts): a stored trail that ends before it was cut. seq 0 when it knows of none.
   */
  auditHighWater(argument: _strongroom_tokenizer_v1_AuditHighWaterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_AuditHighWaterResponse__Output>): grpc.ClientUnaryCall;
  auditHighWater(argument: _strongroom_tokenizer_v1_AuditHighWaterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_AuditHighWaterResponse__Output>): grpc.ClientUnaryCall;
  auditHighWater(argument: _strongroom_tokenizer_v1_AuditHighWaterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_AuditHighWaterResponse__Output>): grpc.ClientUnaryCall;
  auditHighWater(argument: _strongroom_tokenizer_v1_AuditHighWaterRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_AuditHighWaterResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The links of a run of audit events, keyed by the tenant's audit key: link_n = HMAC-SHA256(audit key,
   * link_{n-1} ‖ int8(seq_n) ‖ utf8(canonical_n)). The api appends with them and verifies by comparing them with
   * the stored ones; it never sees the key. INVALID_ARGUMENT for an empty or too long run, or a seq below 1.
   */
  ChainAudit(argument: _strongroom_tokenizer_v1_ChainAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ChainAuditResponse__Output>): grpc.ClientUnaryCall;
  ChainAudit(argument: _strongroom_tokenizer_v1_ChainAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ChainAuditResponse__Output>): grpc.ClientUnaryCall;
  ChainAudit(argument: _strongroom_tokenizer_v1_ChainAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ChainAuditResponse__Output>): grpc.ClientUnaryCall;
  ChainAudit(argument: _strongroom_tokenizer_v1_ChainAuditRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ChainAuditResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The links of a run of audit events, keyed by the tenant's audit key: link_n = HMAC-SHA256(audit key,
   * link_{n-1} ‖ int8(seq_n) ‖ utf8(canonical_n)). The api appends with them and verifies by comparing them with
   * the stored ones; it never sees the key. INVALID_ARGUMENT for an empty or too long run, or a seq below 1.
   */
  chainAudit(argument: _strongroom_tokenizer_v1_ChainAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ChainAuditResponse__Output>): grpc.ClientUnaryCall;
  chainAudit(argument: _strongroom_tokenizer_v1_ChainAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ChainAuditResponse__Output>): grpc.ClientUnaryCall;
  chainAudit(argument: _strongroom_tokenizer_v1_ChainAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ChainAuditResponse__Output>): grpc.ClientUnaryCall;
  chainAudit(argument: _strongroom_tokenizer_v1_ChainAuditRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ChainAuditResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Which master key versions the keyring holds and which one is active (no key material).
   */
  KeyringInfo(argument: _strongroom_tokenizer_v1_KeyringInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_KeyringInfoResponse__Output>): grpc.ClientUnaryCall;
  KeyringInfo(argument: _strongroom_tokenizer_v1_KeyringInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_KeyringInfoResponse__Output>): grpc.ClientUnaryCall;
  KeyringInfo(argument: _strongroom_tokenizer_v1_KeyringInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_KeyringInfoResponse__Output>): grpc.ClientUnaryCall;
  KeyringInfo(argument: _strongroom_tokenizer_v1_KeyringInfoRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_KeyringInfoResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Which master key versions the keyring holds and which one is active (no key material).
   */
  keyringInfo(argument: _strongroom_tokenizer_v1_KeyringInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_KeyringInfoResponse__Output>): grpc.ClientUnaryCall;
  keyringInfo(argument: _strongroom_tokenizer_v1_KeyringInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_KeyringInfoResponse__Output>): grpc.ClientUnaryCall;
  keyringInfo(argument: _strongroom_tokenizer_v1_KeyringInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_KeyringInfoResponse__Output>): grpc.ClientUnaryCall;
  keyringInfo(argument: _strongroom_tokenizer_v1_KeyringInfoRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_KeyringInfoResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * A tenant's own key-encryption key (bring your own key, pkcs11 custody only): a new random 256-bit tenant key,
   * wrapped inside the HSM by the key object `kek_label` (AES-GCM, AAD "strongroom/tenant-kek/v1" ‖ u32 tenant ‖
   * salt). With `from_label`/`from_wrapped`, the tenant's existing tenant key is opened under its old object and
   * wrapped under the new one instead (a move to another KEK: no data key changes). INVALID_ARGUMENT when the
   * custody is static, the object does not exist, or `kek_label` is the keyring's own key; UNAVAILABLE when the HSM
   * does not answer; PERMISSION_DENIED when the old object no longer opens the tenant key.
   */
  MakeTenantKey(argument: _strongroom_tokenizer_v1_MakeTenantKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>): grpc.ClientUnaryCall;
  MakeTenantKey(argument: _strongroom_tokenizer_v1_MakeTenantKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>): grpc.ClientUnaryCall;
  MakeTenantKey(argument: _strongroom_tokenizer_v1_MakeTenantKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>): grpc.ClientUnaryCall;
  MakeTenantKey(argument: _strongroom_tokenizer_v1_MakeTenantKeyRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>): grpc.ClientUnaryCall;
  /**
   * A tenant's own key-encryption key (bring your own key, pkcs11 custody only): a new random 256-bit tenant key,
   * wrapped inside the HSM by the key object `kek_label` (AES-GCM, AAD "strongroom/tenant-kek/v1" ‖ u32 tenant ‖
   * salt). With `from_label`/`from_wrapped`, the tenant's existing tenant key is opened under its old object and
   * wrapped under the new one instead (a move to another KEK: no data key changes). INVALID_ARGUMENT when the
   * custody is static, the object does not exist, or `kek_label` is the keyring's own key; UNAVAILABLE when the HSM
   * does not answer; PERMISSION_DENIED when the old object no longer opens the tenant key.
   */
  makeTenantKey(argument: _strongroom_tokenizer_v1_MakeTenantKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>): grpc.ClientUnaryCall;
  makeTenantKey(argument: _strongroom_tokenizer_v1_MakeTenantKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>): grpc.ClientUnaryCall;
  makeTenantKey(argument: _strongroom_tokenizer_v1_MakeTenantKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>): grpc.ClientUnaryCall;
  makeTenantKey(argument: _strongroom_tokenizer_v1_MakeTenantKeyRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The upgrade of a database sealed before per-person keys (tokenizer/legacy.ts): opens each item as that version
   * sealed it (format 0x01 under the tenant's record key derived without a salt, AAD tenant/from_table/from_row_id)
   * and seals it again in the same call under the data key of `subject` (format 0x02, AAD tenant/table/row_id/
   * subject), so the plaintext never leaves the tokenizer. Keys of new_key_subjects are made in the call and come
   * back wrapped. INVALID_ARGUMENT names the first item that does not open or is malformed; nothing is returned then.
   */
  ResealLegacy(argument: _strongroom_tokenizer_v1_ResealLegacyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResealLegacyResponse__Output>): grpc.ClientUnaryCall;
  ResealLegacy(argument: _strongroom_tokenizer_v1_ResealLegacyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResealLegacyResponse__Output>): grpc.ClientUnaryCall;
  ResealLegacy(argument: _strongroom_tokenizer_v1_ResealLegacyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResealLegacyResponse__Output>): grpc.ClientUnaryCall;
  ResealLegacy(argument: _strongroom_tokenizer_v1_ResealLegacyRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResealLegacyResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The upgrade of a database sealed before per-person keys (tokenizer/legacy.ts): opens each item as that version
   * sealed it (format 0x01 under the tenant's record key derived without a salt, AAD tenant/from_table/from_row_id)
   * and seals it again in the same call under the data key of `subject` (format 0x02, AAD tenant/table/row_id/
   * subject), so the plaintext never leaves the tokenizer. Keys of new_key_subjects are made in the call and come
   * back wrapped. INVALID_ARGUMENT names the first item that does not open or is malformed; nothing is returned then.
   */
  resealLegacy(argument: _strongroom_tokenizer_v1_ResealLegacyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResealLegacyResponse__Output>): grpc.ClientUnaryCall;
  resealLegacy(argument: _strongroom_tokenizer_v1_ResealLegacyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResealLegacyResponse__Output>): grpc.ClientUnaryCall;
  resealLegacy(argument: _strongroom_tokenizer_v1_ResealLegacyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResealLegacyResponse__Output>): grpc.ClientUnaryCall;
  resealLegacy(argument: _strongroom_tokenizer_v1_ResealLegacyRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResealLegacyResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Rebuilds the recovery key from 3 to 5 current shares, checks that it opens the keyring's recovery copy, then
   * makes a new recovery key, re-seals the recovery copy under it and answers its five new shares (the old ones are
   * void). INVALID_ARGUMENT when the shares are unusable or do not rebuild this keyring's recovery key;
   * FAILED_PRECONDITION when the keyring has no recovery key. Either way nothing changes.
   */
  Resplit(argument: _strongroom_tokenizer_v1_ResplitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResplitResponse__Output>): grpc.ClientUnaryCall;
  Resplit(argument: _strongroom_tokenizer_v1_ResplitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResplitResponse__Output>): grpc.ClientUnaryCall;
  Resplit(argument: _strongroom_tokenizer_v1_ResplitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResplitResponse__Output>): grpc.ClientUnaryCall;
  Resplit(argument: _strongroom_tokenizer_v1_ResplitRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResplitResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Rebuilds the recovery key from 3 to 5 current shares, checks that it opens the keyring's recovery copy, then
   * makes a new recovery key, re-seals the recovery copy under it and answers its five new shares (the old ones are
   * void). INVALID_ARGUMENT when the shares are unusable or do not rebuild this keyring's recovery key;
   * FAILED_PRECONDITION when the keyring has no recovery key. Either way nothing changes.
   */
  resplit(argument: _strongroom_tokenizer_v1_ResplitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResplitResponse__Output>): grpc.ClientUnaryCall;
  resplit(argument: _strongroom_tokenizer_v1_ResplitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResplitResponse__Output>): grpc.ClientUnaryCall;
  resplit(argument: _strongroom_tokenizer_v1_ResplitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResplitResponse__Output>): grpc.ClientUnaryCall;
  resplit(argument: _strongroom_tokenizer_v1_ResplitRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_ResplitResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Removes a master key version nothing is sealed under any more (after a rotation's rewrap). FAILED_PRECONDITION
   * for the active version, for version 1 (it derives every lookup hash and FF1 token), and for an unknown one.
   */
  Retire(argument: _strongroom_tokenizer_v1_RetireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RetireResponse__Output>): grpc.ClientUnaryCall;
  Retire(argument: _strongroom_tokenizer_v1_RetireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RetireResponse__Output>): grpc.ClientUnaryCall;
  Retire(argument: _strongroom_tokenizer_v1_RetireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RetireResponse__Output>): grpc.ClientUnaryCall;
  Retire(argument: _strongroom_tokenizer_v1_RetireRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RetireResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Removes a master key version nothing is sealed under any more (after a rotation's rewrap). FAILED_PRECONDITION
   * for the active version, for version 1 (it derives every lookup hash and FF1 token), and for an unknown one.
   */
  retire(argument: _strongroom_tokenizer_v1_RetireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RetireResponse__Output>): grpc.ClientUnaryCall;
  retire(argument: _strongroom_tokenizer_v1_RetireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RetireResponse__Output>): grpc.ClientUnaryCall;
  retire(argument: _strongroom_tokenizer_v1_RetireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RetireResponse__Output>): grpc.ClientUnaryCall;
  retire(argument: _strongroom_tokenizer_v1_RetireRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RetireResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Revokes a tenant's KEK: checks that `kek_wrapped` opens under `kek_label` for this tenant (so no other object,
   * least of all the keyring's own key, can be named), then destroys the key object in the HSM and forgets the
   * tenant key and every cached data key of the tenant. `destroyed` is false when the object was gone already.
   * FAILED_PRECONDITION when the object is there but does not open this tenant's key, or the HSM refuses to destroy.
   */
  RevokeTenantKek(argument: _strongroom_tokenizer_v1_RevokeTenantKekRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>): grpc.ClientUnaryCall;
  RevokeTenantKek(argument: _strongroom_tokenizer_v1_RevokeTenantKekRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>): grpc.ClientUnaryCall;
  RevokeTenantKek(argument: _strongroom_tokenizer_v1_RevokeTenantKekRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>): grpc.ClientUnaryCall;
  RevokeTenantKek(argument: _strongroom_tokenizer_v1_RevokeTenantKekRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Revokes a tenant's KEK: checks that `kek_wrapped` opens under `kek_label` for this tenant (so no other object,
   * least of all the keyring's own key, can be named), then destroys the key object in the HSM and forgets the
   * tenant key and every cached data key of the tenant. `destroyed` is false when the object was gone already.
   * FAILED_PRECONDITION when the object is there but does not open this tenant's key, or the HSM refuses to destroy.
   */
  revokeTenantKek(argument: _strongroom_tokenizer_v1_RevokeTenantKekRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>): grpc.ClientUnaryCall;
  revokeTenantKek(argument: _strongroom_tokenizer_v1_RevokeTenantKekRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>): grpc.ClientUnaryCall;
  revokeTenantKek(argument: _strongroom_tokenizer_v1_RevokeTenantKekRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>): grpc.ClientUnaryCall;
  revokeTenantKek(argument: _strongroom_tokenizer_v1_RevokeTenantKekRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Rebuilds the recovery key from at least 3 of its 5 Shamir shares, checks it against the running keyring and
   * re-seals the keyring under a new wrapping key, returned once. FAILED_PRECONDITION when the shares do not
   * rebuild this keyring's recovery key; then nothing changes.
   */
  Rewrap(argument: _strongroom_tokenizer_v1_RewrapRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RewrapResponse__Output>): grpc.ClientUnaryCall;
  Rewrap(argument: _strongroom_tokenizer_v1_RewrapRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RewrapResponse__Output>): grpc.ClientUnaryCall;
  Rewrap(argument: _strongroom_tokenizer_v1_RewrapRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RewrapResponse__Output>): grpc.ClientUnaryCall;
  Rewrap(argument: _strongroom_tokenizer_v1_RewrapRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RewrapResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Rebuilds the recovery key from at least 3 of its 5 Shamir shares, checks it against the running keyring and
   * re-seals the keyring under a new wrapping key, returned once. FAILED_PRECONDITION when the shares do not
   * rebuild this keyring's recovery key; then nothing changes.
   */
  rewrap(argument: _strongroom_tokenizer_v1_RewrapRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RewrapResponse__Output>): grpc.ClientUnaryCall;
  rewrap(argument: _strongroom_tokenizer_v1_RewrapRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RewrapResponse__Output>): grpc.ClientUnaryCall;
  rewrap(argument: _strongroom_tokenizer_v1_RewrapRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RewrapResponse__Output>): grpc.ClientUnaryCall;
  rewrap(argument: _strongroom_tokenizer_v1_RewrapRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RewrapResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Adds a master key version and makes it active for new writes; older versions keep opening.
   */
  Rotate(argument: _strongroom_tokenizer_v1_RotateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RotateResponse__Output>): grpc.ClientUnaryCall;
  Rotate(argument: _strongroom_tokenizer_v1_RotateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RotateResponse__Output>): grpc.ClientUnaryCall;
  Rotate(argument: _strongroom_tokenizer_v1_RotateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RotateResponse__Output>): grpc.ClientUnaryCall;
  Rotate(argument: _strongroom_tokenizer_v1_RotateRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RotateResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Adds a master key version and makes it active for new writes; older versions keep opening.
   */
  rotate(argument: _strongroom_tokenizer_v1_RotateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RotateResponse__Output>): grpc.ClientUnaryCall;
  rotate(argument: _strongroom_tokenizer_v1_RotateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RotateResponse__Output>): grpc.ClientUnaryCall;
  rotate(argument: _strongroom_tokenizer_v1_RotateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RotateResponse__Output>): grpc.ClientUnaryCall;
  rotate(argument: _strongroom_tokenizer_v1_RotateRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_RotateResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Runs every item of the batch under the tenant's subkeys. Results come back in request order.
   * INVALID_ARGUMENT names the first bad item; no partial results are returned.
   */
  Run(argument: _strongroom_tokenizer_v1_Batch, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_BatchResult__Output>): grpc.ClientUnaryCall;
  Run(argument: _strongroom_tokenizer_v1_Batch, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_BatchResult__Output>): grpc.ClientUnaryCall;
  Run(argument: _strongroom_tokenizer_v1_Batch, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_BatchResult__Output>): grpc.ClientUnaryCall;
  Run(argument: _strongroom_tokenizer_v1_Batch, callback: grpc.requestCallback<_strongroom_tokenizer_v1_BatchResult__Output>): grpc.ClientUnaryCall;
  /**
   * Runs every item of the batch under the tenant's subkeys. Results come back in request order.
   * INVALID_ARGUMENT names the first bad item; no partial results are returned.
   */
  run(argument: _strongroom_tokenizer_v1_Batch, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_BatchResult__Output>): grpc.ClientUnaryCall;
  run(argument: _strongroom_tokenizer_v1_Batch, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_BatchResult__Output>): grpc.ClientUnaryCall;
  run(argument: _strongroom_tokenizer_v1_Batch, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_BatchResult__Output>): grpc.ClientUnaryCall;
  run(argument: _strongroom_tokenizer_v1_Batch, callback: grpc.requestCallback<_strongroom_tokenizer_v1_BatchResult__Output>): grpc.ClientUnaryCall;
  
  /**
   * Run over one long-lived stream: each request is a Run, answered by its id, in any order. A message on an open
   * stream costs neither side a new HTTP/2 stream, headers or a deadline header: the api sends its small batches
   * this way (large ones go by Run, which a caller can cancel). A failed batch answers its own code and details
   * (as Run would) and the stream goes on.
   */
  RunStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_strongroom_tokenizer_v1_RunRequest, _strongroom_tokenizer_v1_RunReply__Output>;
  RunStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_strongroom_tokenizer_v1_RunRequest, _strongroom_tokenizer_v1_RunReply__Output>;
  /**
   * Run over one long-lived stream: each request is a Run, answered by its id, in any order. A message on an open
   * stream costs neither side a new HTTP/2 stream, headers or a deadline header: the api sends its small batches
   * this way (large ones go by Run, which a caller can cancel). A failed batch answers its own code and details
   * (as Run would) and the stream goes on.
   */
  runStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_strongroom_tokenizer_v1_RunRequest, _strongroom_tokenizer_v1_RunReply__Output>;
  runStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_strongroom_tokenizer_v1_RunRequest, _strongroom_tokenizer_v1_RunReply__Output>;
  
  /**
   * Signs a checkpoint of a tenant's audit head with the tokenizer's Ed25519 key, at the tokenizer's own time,
   * after checking that `link` is the keyed link of (previous, seq, canonical) and `digest` the public digest of
   * (previous_digest, seq, canonical): only a link the tokenizer made is ever signed. FAILED_PRECONDITION when not.
   */
  SignCheckpoint(argument: _strongroom_tokenizer_v1_SignCheckpointRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_SignCheckpointResponse__Output>): grpc.ClientUnaryCall;
  SignCheckpoint(argument: _strongroom_tokenizer_v1_SignCheckpointRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_SignCheckpointResponse__Output>): grpc.ClientUnaryCall;
  SignCheckpoint(argument: _strongroom_tokenizer_v1_SignCheckpointRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_SignCheckpointResponse__Output>): grpc.ClientUnaryCall;
  SignCheckpoint(argument: _strongroom_tokenizer_v1_SignCheckpointRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_SignCheckpointResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Signs a checkpoint of a tenant's audit head with the tokenizer's Ed25519 key, at the tokenizer's own time,
   * after checking that `link` is the keyed link of (previous, seq, canonical) and `digest` the public digest of
   * (previous_digest, seq, canonical): only a link the tokenizer made is ever signed. FAILED_PRECONDITION when not.
   */
  signCheckpoint(argument: _strongroom_tokenizer_v1_SignCheckpointRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_SignCheckpointResponse__Output>): grpc.ClientUnaryCall;
  signCheckpoint(argument: _strongroom_tokenizer_v1_SignCheckpointRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_SignCheckpointResponse__Output>): grpc.ClientUnaryCall;
  signCheckpoint(argument: _strongroom_tokenizer_v1_SignCheckpointRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_SignCheckpointResponse__Output>): grpc.ClientUnaryCall;
  signCheckpoint(argument: _strongroom_tokenizer_v1_SignCheckpointRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_SignCheckpointResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The state of each named KEK object now (a sealed round trip inside the HSM): "up", "missing" (no such object)
   * or "unavailable" (the HSM did not answer). Never a key.
   */
  TenantKekStatus(argument: _strongroom_tokenizer_v1_TenantKekStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_TenantKekStatusResponse__Output>): grpc.ClientUnaryCall;
  TenantKekStatus(argument: _strongroom_tokenizer_v1_TenantKekStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_TenantKekStatusResponse__Output>): grpc.ClientUnaryCall;
  TenantKekStatus(argument: _strongroom_tokenizer_v1_TenantKekStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_TenantKekStatusResponse__Output>): grpc.ClientUnaryCall;
  TenantKekStatus(argument: _strongroom_tokenizer_v1_TenantKekStatusRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_TenantKekStatusResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The state of each named KEK object now (a sealed round trip inside the HSM): "up", "missing" (no such object)
   * or "unavailable" (the HSM did not answer). Never a key.
   */
  tenantKekStatus(argument: _strongroom_tokenizer_v1_TenantKekStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_TenantKekStatusResponse__Output>): grpc.ClientUnaryCall;
  tenantKekStatus(argument: _strongroom_tokenizer_v1_TenantKekStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_strongroom_tokenizer_v1_TenantKekStatusResponse__Output>): grpc.ClientUnaryCall;
  tenantKekStatus(argument: _strongroom_tokenizer_v1_TenantKekStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_strongroom_tokenizer_v1_TenantKekStatusResponse__Output>): grpc.ClientUnaryCall;
  tenantKekStatus(argument: _strongroom_tokenizer_v1_TenantKekStatusRequest, callback: grpc.requestCallback<_strongroom_tokenizer_v1_TenantKekStatusResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface TokenizerHandlers extends grpc.UntypedServiceImplementation {
  /**
   * The newest head of the tenant's trail this tokenizer linked from, was told committed, or signed (kept beside the
   * keyring across restarts): a stored trail that ends before it was cut. seq 0 when it knows of none.
   */
  AuditHighWater: grpc.handleUnaryCall<_strongroom_tokenizer_v1_AuditHighWaterRequest__Output, _strongroom_tokenizer_v1_AuditHighWaterResponse>;
  
  /**
   * The links of a run of audit events, keyed by the tenant's audit key: link_n = HMAC-SHA256(audit key,
   * link_{n-1} ‖ int8(seq_n) ‖ utf8(canonical_n)). The api appends with them and verifies by comparing them with
   * the stored ones; it never sees the key. INVALID_ARGUMENT for an empty or too long run, or a seq below 1.
   */
  ChainAudit: grpc.handleUnaryCall<_strongroom_tokenizer_v1_ChainAuditRequest__Output, _strongroom_tokenizer_v1_ChainAuditResponse>;
  
  /**
   * Which master key versions the keyring holds and which one is active (no key material).
   */
  KeyringInfo: grpc.handleUnaryCall<_strongroom_tokenizer_v1_KeyringInfoRequest__Output, _strongroom_tokenizer_v1_KeyringInfoResponse>;
  
  /**
   * A tenant's own key-encryption key (bring your own key, pkcs11 custody only): a new random 256-bit tenant key,
   * wrapped inside the HSM by the key object `kek_label` (AES-GCM, AAD "strongroom/tenant-kek/v1" ‖ u32 tenant ‖
   * salt). With `from_label`/`from_wrapped`, the tenant's existing tenant key is opened under its old object and
   * wrapped under the new one instead (a move to another KEK: no data key changes). INVALID_ARGUMENT when the
   * custody is static, the object does not exist, or `kek_label` is the keyring's own key; UNAVAILABLE when the HSM
   * does not answer; PERMISSION_DENIED when the old object no longer opens the tenant key.
   */
  MakeTenantKey: grpc.handleUnaryCall<_strongroom_tokenizer_v1_MakeTenantKeyRequest__Output, _strongroom_tokenizer_v1_MakeTenantKeyResponse>;
  
  /**
   * The upgrade of a database sealed before per-person keys (tokenizer/legacy.ts): opens each item as that version
   * sealed it (format 0x01 under the tenant's record key derived without a salt, AAD tenant/from_table/from_row_id)
   * and seals it again in the same call under the data key of `subject` (format 0x02, AAD tenant/table/row_id/
   * subject), so the plaintext never leaves the tokenizer. Keys of new_key_subjects are made in the call and come
   * back wrapped. INVALID_ARGUMENT names the first item that does not open or is malformed; nothing is returned then.
   */
  ResealLegacy: grpc.handleUnaryCall<_strongroom_tokenizer_v1_ResealLegacyRequest__Output, _strongroom_tokenizer_v1_ResealLegacyResponse>;
  
  /**
   * Rebuilds the recovery key from 3 to 5 current shares, checks that it opens the keyring's recovery copy, then
   * makes a new recovery key, re-seals the recovery copy under it and answers its five new shares (the old ones are
   * void). INVALID_ARGUMENT when the shares are unusable or do not rebuild this keyring's recovery key;
   * FAILED_PRECONDITION when the keyring has no recovery key. Either way nothing changes.
   */
  Resplit: grpc.handleUnaryCall<_strongroom_tokenizer_v1_ResplitRequest__Output, _strongroom_tokenizer_v1_ResplitResponse>;
  
  /**
   * Removes a master key version nothing is sealed under any more (after a rotation's rewrap). FAILED_PRECONDITION
   * for the active version, for version 1 (it derives every lookup hash and FF1 token), and for an unknown one.
   */
  Retire: grpc.handleUnaryCall<_strongroom_tokenizer_v1_RetireRequest__Output, _strongroom_tokenizer_v1_RetireResponse>;
  
  /**
   * Revokes a tenant's KEK: checks that `kek_wrapped` opens under `kek_label` for this tenant (so no other object,
   * least of all the keyring's own key, can be named), then destroys the key object in the HSM and forgets the
   * tenant key and every cached data key of the tenant. `destroyed` is false when the object was gone already.
   * FAILED_PRECONDITION when the object is there but does not open this tenant's key, or the HSM refuses to destroy.
   */
  RevokeTenantKek: grpc.handleUnaryCall<_strongroom_tokenizer_v1_RevokeTenantKekRequest__Output, _strongroom_tokenizer_v1_RevokeTenantKekResponse>;
  
  /**
   * Rebuilds the recovery key from at least 3 of its 5 Shamir shares, checks it against the running keyring and
   * re-seals the keyring under a new wrapping key, returned once. FAILED_PRECONDITION when the shares do not
   * rebuild this keyring's recovery key; then nothing changes.
   */
  Rewrap: grpc.handleUnaryCall<_strongroom_tokenizer_v1_RewrapRequest__Output, _strongroom_tokenizer_v1_RewrapResponse>;
  
  /**
   * Adds a master key version and makes it active for new writes; older versions keep opening.
   */
  Rotate: grpc.handleUnaryCall<_strongroom_tokenizer_v1_RotateRequest__Output, _strongroom_tokenizer_v1_RotateResponse>;
  
  /**
   * Runs every item of the batch under the tenant's subkeys. Results come back in request order.
   * INVALID_ARGUMENT names the first bad item; no partial results are returned.
   */
  Run: grpc.handleUnaryCall<_strongroom_tokenizer_v1_Batch__Output, _strongroom_tokenizer_v1_BatchResult>;
  
  /**
   * Run over one long-lived stream: each request is a Run, answered by its id, in any order. A message on an open
   * stream costs neither side a new HTTP/2 stream, headers or a deadline header: the api sends its small batches
   * this way (large ones go by Run, which a caller can cancel). A failed batch answers its own code and details
   * (as Run would) and the stream goes on.
   */
  RunStream: grpc.handleBidiStreamingCall<_strongroom_tokenizer_v1_RunRequest__Output, _strongroom_tokenizer_v1_RunReply>;
  
  /**
   * Signs a checkpoint of a tenant's audit head with the tokenizer's Ed25519 key, at the tokenizer's own time,
   * after checking that `link` is the keyed link of (previous, seq, canonical) and `digest` the public digest of
   * (previous_digest, seq, canonical): only a link the tokenizer made is ever signed. FAILED_PRECONDITION when not.
   */
  SignCheckpoint: grpc.handleUnaryCall<_strongroom_tokenizer_v1_SignCheckpointRequest__Output, _strongroom_tokenizer_v1_SignCheckpointResponse>;
  
  /**
   * The state of each named KEK object now (a sealed round trip inside the HSM): "up", "missing" (no such object)
   * or "unavailable" (the HSM did not answer). Never a key.
   */
  TenantKekStatus: grpc.handleUnaryCall<_strongroom_tokenizer_v1_TenantKekStatusRequest__Output, _strongroom_tokenizer_v1_TenantKekStatusResponse>;
  
}

export interface TokenizerDefinition extends grpc.ServiceDefinition {
  AuditHighWater: MethodDefinition<_strongroom_tokenizer_v1_AuditHighWaterRequest, _strongroom_tokenizer_v1_AuditHighWaterResponse, _strongroom_tokenizer_v1_AuditHighWaterRequest__Output, _strongroom_tokenizer_v1_AuditHighWaterResponse__Output>
  ChainAudit: MethodDefinition<_strongroom_tokenizer_v1_ChainAuditRequest, _strongroom_tokenizer_v1_ChainAuditResponse, _strongroom_tokenizer_v1_ChainAuditRequest__Output, _strongroom_tokenizer_v1_ChainAuditResponse__Output>
  KeyringInfo: MethodDefinition<_strongroom_tokenizer_v1_KeyringInfoRequest, _strongroom_tokenizer_v1_KeyringInfoResponse, _strongroom_tokenizer_v1_KeyringInfoRequest__Output, _strongroom_tokenizer_v1_KeyringInfoResponse__Output>
  MakeTenantKey: MethodDefinition<_strongroom_tokenizer_v1_MakeTenantKeyRequest, _strongroom_tokenizer_v1_MakeTenantKeyResponse, _strongroom_tokenizer_v1_MakeTenantKeyRequest__Output, _strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>
  ResealLegacy: MethodDefinition<_strongroom_tokenizer_v1_ResealLegacyRequest, _strongroom_tokenizer_v1_ResealLegacyResponse, _strongroom_tokenizer_v1_ResealLegacyRequest__Output, _strongroom_tokenizer_v1_ResealLegacyResponse__Output>
  Resplit: MethodDefinition<_strongroom_tokenizer_v1_ResplitRequest, _strongroom_tokenizer_v1_ResplitResponse, _strongroom_tokenizer_v1_ResplitRequest__Output, _strongroom_tokenizer_v1_ResplitResponse__Output>
  Retire: MethodDefinition<_strongroom_tokenizer_v1_RetireRequest, _strongroom_tokenizer_v1_RetireResponse, _strongroom_tokenizer_v1_RetireRequest__Output, _strongroom_tokenizer_v1_RetireResponse__Output>
  RevokeTenantKek: MethodDefinition<_strongroom_tokenizer_v1_RevokeTenantKekRequest, _strongroom_tokenizer_v1_RevokeTenantKekResponse, _strongroom_tokenizer_v1_RevokeTenantKekRequest__Output, _strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>
  Rewrap: MethodDefinition<_strongroom_tokenizer_v1_RewrapRequest, _strongroom_tokenizer_v1_RewrapResponse, _strongroom_tokenizer_v1_RewrapRequest__Output, _strongroom_tokenizer_v1_RewrapResponse__Output>
  Rotate: MethodDefinition<_strongroom_tokenizer_v1_RotateRequest, _strongroom_tokenizer_v1_RotateResponse, _strongroom_tokenizer_v1_RotateRequest__Output, _strongroom_tokenizer_v1_RotateResponse__Output>
  Run: MethodDefinition<_strongroom_tokenizer_v1_Batch, _strongroom_tokenizer_v1_BatchResult, _strongroom_tokenizer_v1_Batch__Output, _strongroom_tokenizer_v1_BatchResult__Output>
  RunStream: MethodDefinition<_strongroom_tokenizer_v1_RunRequest, _strongroom_tokenizer_v1_RunReply, _strongroom_tokenizer_v1_RunRequest__Output, _strongroom_tokenizer_v1_RunReply__Output>
  SignCheckpoint: MethodDefinition<_strongroom_tokenizer_v1_SignCheckpointRequest, _strongroom_tokenizer_v1_SignCheckpointResponse, _strongroom_tokenizer_v1_SignCheckpointRequest__Output, _strongroom_tokenizer_v1_SignCheckpointResponse__Output>
  TenantKekStatus: MethodDefinition<_strongroom_tokenizer_v1_TenantKekStatusRequest, _strongroom_tokenizer_v1_TenantKekStatusResponse, _strongroom_tokenizer_v1_TenantKekStatusRequest__Output, _strongroom_tokenizer_v1_TenantKekStatusResponse__Output>
}
