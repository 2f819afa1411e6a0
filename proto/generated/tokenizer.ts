import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AuditHighWaterRequest as _strongroom_tokenizer_v1_AuditHighWaterRequest, AuditHighWaterRequest__Output as _strongroom_tokenizer_v1_AuditHighWaterRequest__Output } from './strongroom/tokenizer/v1/AuditHighWaterRequest.js';
import type { AuditHighWaterResponse as _strongroom_tokenizer_v1_AuditHighWaterResponse, AuditHighWaterResponse__Output as _strongroom_tokenizer_v1_AuditHighWaterResponse__Output } from './strongroom/tokenizer/v1/AuditHighWaterResponse.js';
import type { Batch as _strongroom_tokenizer_v1_Batch, Batch__Output as _strongroom_tokenizer_v1_Batch__Output } from './strongroom/tokenizer/v1/Batch.js';
import type { BatchResult as _strongroom_tokenizer_v1_BatchResult, BatchResult__Output as _strongroom_tokenizer_v1_BatchResult__Output } from './strongroom/tokenizer/v1/BatchResult.js';
import type { ChainAuditRequest as _strongroom_tokenizer_v1_ChainAuditRequest, ChainAuditRequest__Output as _strongroom_tokenizer_v1_ChainAuditRequest__Output } from './strongroom/tokenizer/v1/ChainAuditRequest.js';
import type { ChainAuditResponse as _strongroom_tokenizer_v1_ChainAuditResponse, ChainAuditResponse__Output as _strongroom_tokenizer_v1_ChainAuditResponse__Output } from './strongroom/tokenizer/v1/ChainAuditResponse.js';
import type { ChainItem as _strongroom_tokenizer_v1_ChainItem, ChainItem__Output as _strongroom_tokenizer_v1_ChainItem__Output } from './strongroom/tokenizer/v1/ChainItem.js';
import type { ChainLinks as _strongroom_tokenizer_v1_ChainLinks, ChainLinks__Output as _strongroom_tokenizer_v1_ChainLinks__Output } from './strongroom/tokenizer/v1/ChainLinks.js';
import type { DetokenizeItem as _strongroom_tokenizer_v1_DetokenizeItem, DetokenizeItem__Output as _strongroom_tokenizer_v1_DetokenizeItem__Output } from './strongroom/tokenizer/v1/DetokenizeItem.js';
import type { HashItem as _strongroom_tokenizer_v1_HashItem, HashItem__Output as _strongroom_tokenizer_v1_HashItem__Output } from './strongroom/tokenizer/v1/HashItem.js';
import type { KeyringInfoRequest as _strongroom_tokenizer_v1_KeyringInfoRequest, KeyringInfoRequest__Output as _strongroom_tokenizer_v1_KeyringInfoRequest__Output } from './strongroom/tokenizer/v1/KeyringInfoRequest.js';
import type { KeyringInfoResponse as _strongroom_tokenizer_v1_KeyringInfoResponse, KeyringInfoResponse__Output as _strongroom_tokenizer_v1_KeyringInfoResponse__Output } from './strongroom/tokenizer/v1/KeyringInfoResponse.js';
import type { MakeTenantKeyRequest as _strongroom_tokenizer_v1_MakeTenantKeyRequest, MakeTenantKeyRequest__Output as _strongroom_tokenizer_v1_MakeTenantKeyRequest__Output } from './strongroom/tokenizer/v1/MakeTenantKeyRequest.js';
import type { MakeTenantKeyResponse as _strongroom_tokenizer_v1_MakeTenantKeyResponse, MakeTenantKeyResponse__Output as _strongroom_tokenizer_v1_MakeTenantKeyResponse__Output } from './strongroom/tokenizer/v1/MakeTenantKeyResponse.js';
import type { OpenItem as _strongroom_tokenizer_v1_OpenItem, OpenItem__Output as _strongroom_tokenizer_v1_OpenItem__Output } from './strongroom/tokenizer/v1/OpenItem.js';
import type { QueueMacItem as _strongroom_tokenizer_v1_QueueMacItem, QueueMacItem__Output as _strongroom_tokenizer_v1_QueueMacItem__Output } from './strongroom/tokenizer/v1/QueueMacItem.js';
import type { ResealLegacyItem as _strongroom_tokenizer_v1_ResealLegacyItem, ResealLegacyItem__Output as _strongroom_tokenizer_v1_ResealLegacyItem__Output } from './strongroom/tokenizer/v1/ResealLegacyItem.js';
import type { ResealLegacyRequest as _strongroom_tokenizer_v1_ResealLegacyRequest, ResealLegacyRequest__Output as _strongroom_tokenizer_v1_ResealLegacyRequest__Output } from './strongroom/tokenizer/v1/ResealLegacyRequest.js';
import type { ResealLegacyResponse as _strongroom_tokenizer_v1_ResealLegacyResponse, ResealLegacyResponse__Output as _strongroom_tokenizer_v1_ResealLegacyResponse__Output } from './strongroom/tokenizer/v1/ResealLegacyResponse.js';
import type { ResplitRequest as _strongroom_tokenizer_v1_ResplitRequest, ResplitRequest__Output as _strongroom_tokenizer_v1_ResplitRequest__Output } from './strongroom/tokenizer/v1/ResplitRequest.js';
import type { ResplitResponse as _strongroom_tokenizer_v1_ResplitResponse, ResplitResponse__Output as _strongroom_tokenizer_v1_ResplitResponse__Output } from './strongroom/tokenizer/v1/ResplitResponse.js';
import type { RetireRequest as _strongroom_tokenizer_v1_RetireRequest, RetireRequest__Output as _strongroom_tokenizer_v1_RetireRequest__Output } from './strongroom/tokenizer/v1/RetireRequest.js';
import type { RetireResponse as _strongroom_tokenizer_v1_RetireResponse, RetireResponse__Output as _strongroom_tokenizer_v1_RetireResponse__Output } from './strongroom/tokenizer/v1/RetireResponse.js';
import type { RevokeTenantKekRequest as _strongroom_tokenizer_v1_RevokeTenantKekRequest, RevokeTenantKekRequest__Output as _strongroom_tokenizer_v1_RevokeTenantKekRequest__Output } from './strongroom/tokenizer/v1/RevokeTenantKekRequest.js';
import type { RevokeTenantKekResponse as _strongroom_tokenizer_v1_RevokeTenantKekResponse, RevokeTenantKekResponse__Output as _strongroom_tokenizer_v1_RevokeTenantKekResponse__Output } from './strongroom/tokenizer/v1/RevokeTenantKekResponse.js';
import type { RewrapKeyItem as _strongroom_tokenizer_v1_RewrapKeyItem, RewrapKeyItem__Output as _strongroom_tokenizer_v1_RewrapKeyItem__Output } from './strongroom/tokenizer/v1/RewrapKeyItem.js';
import type { RewrapRequest as _strongroom_tokenizer_v1_RewrapRequest, RewrapRequest__Output as _strongroom_tokenizer_v1_RewrapRequest__Output } from './strongroom/tokenizer/v1/RewrapRequest.js';
import type { RewrapResponse as _strongroom_tokenizer_v1_RewrapResponse, RewrapResponse__Output as _strongroom_tokenizer_v1_RewrapResponse__Output } from './strongroom/tokenizer/v1/RewrapResponse.js';
import type { RotateRequest as _strongroom_tokenizer_v1_RotateRequest, RotateRequest__Output as _strongroom_tokenizer_v1_RotateRequest__Output } from './strongroom/tokenizer/v1/RotateRequest.js';
import type { RotateResponse as _strongroom_tokenizer_v1_RotateResponse, RotateResponse__Output as _strongroom_tokenizer_v1_RotateResponse__Output } from './strongroom/tokenizer/v1/RotateResponse.js';
import type { RunReply as _strongroom_tokenizer_v1_RunReply, RunReply__Output as _strongroom_tokenizer_v1_RunReply__Output } from './strongroom/tokenizer/v1/RunReply.js';
import type { RunRequest as _strongroom_tokenizer_v1_RunRequest, RunRequest__Output as _strongroom_tokenizer_v1_RunRequest__Output } from './strongroom/tokenizer/v1/RunRequest.js';
import type { SealItem as _strongroom_tokenizer_v1_SealItem, SealItem__Output as _strongroom_tokenizer_v1_SealItem__Output } from './strongroom/tokenizer/v1/SealItem.js';
import type { SignCheckpointRequest as _strongroom_tokenizer_v1_SignCheckpointRequest, SignCheckpointRequest__Output as _strongroom_tokenizer_v1_SignCheckpointRequest__Output } from './strongroom/tokenizer/v1/SignCheckpointRequest.js';
import type { SignCheckpointResponse as _strongroom_tokenizer_v1_SignCheckpointResponse, SignCheckpointResponse__Output as _strongroom_tokenizer_v1_SignCheckpointResponse__Output } from './strongroom/tokenizer/v1/SignCheckpointResponse.js';
import type { TenantKekStatusRequest as _strongroom_tokenizer_v1_TenantKekStatusRequest, TenantKekStatusRequest__Output as _strongroom_tokenizer_v1_TenantKekStatusRequest__Output } from './strongroom/tokenizer/v1/TenantKekStatusRequest.js';
import type { TenantKekStatusResponse as _strongroom_tokenizer_v1_TenantKekStatusResponse, TenantKekStatusResponse__Output as _strongroom_tokenizer_v1_TenantKekStatusResponse__Output } from './strongroom/tokenizer/v1/TenantKekStatusResponse.js';
import type { TokenResult as _strongroom_tokenizer_v1_TokenResult, TokenResult__Output as _strongroom_tokenizer_v1_TokenResult__Output } from './strongroom/tokenizer/v1/TokenResult.js';
import type { TokenizeItem as _strongroom_tokenizer_v1_TokenizeItem, TokenizeItem__Output as _strongroom_tokenizer_v1_TokenizeItem__Output } from './strongroom/tokenizer/v1/TokenizeItem.js';
import type { TokenizerClient as _strongroom_tokenizer_v1_TokenizerClient, TokenizerDefinition as _strongroom_tokenizer_v1_TokenizerDefinition } from './strongroom/tokenizer/v1/Tokenizer.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  strongroom: {
    tokenizer: {
      v1: {
        AuditHighWaterRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_AuditHighWaterRequest, _strongroom_tokenizer_v1_AuditHighWaterRequest__Output>
        AuditHighWaterResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_AuditHighWaterResponse, _strongroom_tokenizer_v1_AuditHighWaterResponse__Output>
        Batch: MessageTypeDefinition<_strongroom_tokenizer_v1_Batch, _strongroom_tokenizer_v1_Batch__Output>
        BatchResult: MessageTypeDefinition<_strongroom_tokenizer_v1_BatchResult, _strongroom_tokenizer_v1_BatchResult__Output>
        ChainAuditRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_ChainAuditRequest, _strongroom_tokenizer_v1_ChainAuditRequest__Output>
        ChainAuditResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_ChainAuditResponse, _strongroom_tokenizer_v1_ChainAuditResponse__Output>
        ChainItem: MessageTypeDefinition<_strongroom_tokenizer_v1_ChainItem, _strongroom_tokenizer_v1_ChainItem__Output>
        ChainLinks: MessageTypeDefinition<_strongroom_tokenizer_v1_ChainLinks, _strongroom_tokenizer_v1_ChainLinks__Output>
        DetokenizeItem: MessageTypeDefinition<_strongroom_tokenizer_v1_DetokenizeItem, _strongroom_tokenizer_v1_DetokenizeItem__Output>
        HashItem: MessageTypeDefinition<_strongroom_tokenizer_v1_HashItem, _strongroom_tokenizer_v1_HashItem__Output>
        IndexKind: EnumTypeDefinition
        KeyringInfoRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_KeyringInfoRequest, _strongroom_tokenizer_v1_KeyringInfoRequest__Output>
        KeyringInfoResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_KeyringInfoResponse, _strongroom_tokenizer_v1_KeyringInfoResponse__Output>
        MakeTenantKeyRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_MakeTenantKeyRequest, _strongroom_tokenizer_v1_MakeTenantKeyRequest__Output>
        MakeTenantKeyResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_MakeTenantKeyResponse, _strongroom_tokenizer_v1_MakeTenantKeyResponse__Output>
        OpenItem: MessageTypeDefinition<_strongroom_tokenizer_v1_OpenItem, _strongroom_tokenizer_v1_OpenItem__Output>
        QueueMacItem: MessageTypeDefinition<_strongroom_tokenizer_v1_QueueMacItem, _strongroom_tokenizer_v1_QueueMacItem__Output>
        ResealLegacyItem: MessageTypeDefinition<_strongroom_tokenizer_v1_ResealLegacyItem, _strongroom_tokenizer_v1_ResealLegacyItem__Output>
        ResealLegacyRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_ResealLegacyRequest, _strongroom_tokenizer_v1_ResealLegacyRequest__Output>
        ResealLegacyResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_ResealLegacyResponse, _strongroom_tokenizer_v1_ResealLegacyResponse__Output>
        ResplitRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_ResplitRequest, _strongroom_tokenizer_v1_ResplitRequest__Output>
        ResplitResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_ResplitResponse, _strongroom_tokenizer_v1_ResplitResponse__Output>
        RetireRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_RetireRequest, _strongroom_tokenizer_v1_RetireRequest__Output>
        RetireResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_RetireResponse, _strongroom_tokenizer_v1_RetireResponse__Output>
        RevokeTenantKekRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_RevokeTenantKekRequest, _strongroom_tokenizer_v1_RevokeTenantKekRequest__Output>
        RevokeTenantKekResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_RevokeTenantKekResponse, _strongroom_tokenizer_v1_RevokeTenantKekResponse__Output>
        RewrapKeyItem: MessageTypeDefinition<_strongroom_tokenizer_v1_RewrapKeyItem, _strongroom_tokenizer_v1_RewrapKeyItem__Output>
        RewrapRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_RewrapRequest, _strongroom_tokenizer_v1_RewrapRequest__Output>
        RewrapResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_RewrapResponse, _strongroom_tokenizer_v1_RewrapResponse__Output>
        RotateRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_RotateRequest, _strongroom_tokenizer_v1_RotateRequest__Output>
        RotateResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_RotateResponse, _strongroom_tokenizer_v1_RotateResponse__Output>
        RunReply: MessageTypeDefinition<_strongroom_tokenizer_v1_RunReply, _strongroom_tokenizer_v1_RunReply__Output>
        RunRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_RunRequest, _strongroom_tokenizer_v1_RunRequest__Output>
        SealItem: MessageTypeDefinition<_strongroom_tokenizer_v1_SealItem, _strongroom_tokenizer_v1_SealItem__Output>
        SignCheckpointRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_SignCheckpointRequest, _strongroom_tokenizer_v1_SignCheckpointRequest__Output>
        SignCheckpointResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_SignCheckpointResponse, _strongroom_tokenizer_v1_SignCheckpointResponse__Output>
        TenantKekStatusRequest: MessageTypeDefinition<_strongroom_tokenizer_v1_TenantKekStatusRequest, _strongroom_tokenizer_v1_TenantKekStatusRequest__Output>
        TenantKekStatusResponse: MessageTypeDefinition<_strongroom_tokenizer_v1_TenantKekStatusResponse, _strongroom_tokenizer_v1_TenantKekStatusResponse__Output>
        TokenFormat: EnumTypeDefinition
        TokenResult: MessageTypeDefinition<_strongroom_tokenizer_v1_TokenResult, _strongroom_tokenizer_v1_TokenResult__Output>
        TokenizeItem: MessageTypeDefinition<_strongroom_tokenizer_v1_TokenizeItem, _strongroom_tokenizer_v1_TokenizeItem__Output>
        Tokenizer: SubtypeConstructor<typeof grpc.Client, _strongroom_tokenizer_v1_TokenizerClient> & { service: _strongroom_tokenizer_v1_TokenizerDefinition }
      }
    }
  }
}

