// The one gRPC loader configuration: loads tokenizer.proto and health.proto, typed by the code in generated/.
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as TokenizerProto } from './generated/tokenizer.js';
import type { ProtoGrpcType as HealthProto } from './generated/health.js';
import type { IndexKind__Output } from './generated/strongroom/tokenizer/v1/IndexKind.js';
import type { TokenFormat__Output } from './generated/strongroom/tokenizer/v1/TokenFormat.js';

// The message types both processes use. `X` is what a sender may write, `X__Output` what a receiver gets.
export type { Batch, Batch__Output } from './generated/strongroom/tokenizer/v1/Batch.js';
export type { BatchResult, BatchResult__Output } from './generated/strongroom/tokenizer/v1/BatchResult.js';
export type { RunRequest, RunRequest__Output } from './generated/strongroom/tokenizer/v1/RunRequest.js';
export type { RunReply__Output } from './generated/strongroom/tokenizer/v1/RunReply.js';
export type { HashItem__Output } from './generated/strongroom/tokenizer/v1/HashItem.js';
export type { SealItem__Output } from './generated/strongroom/tokenizer/v1/SealItem.js';
export type { OpenItem__Output } from './generated/strongroom/tokenizer/v1/OpenItem.js';
export type { TokenizeItem__Output } from './generated/strongroom/tokenizer/v1/TokenizeItem.js';
export type { DetokenizeItem__Output } from './generated/strongroom/tokenizer/v1/DetokenizeItem.js';
export type { TokenResult__Output } from './generated/strongroom/tokenizer/v1/TokenResult.js';
export type { KeyringInfoResponse__Output } from './generated/strongroom/tokenizer/v1/KeyringInfoResponse.js';
export type { RewrapResponse__Output } from './generated/strongroom/tokenizer/v1/RewrapResponse.js';
export type { ResplitResponse__Output } from './generated/strongroom/tokenizer/v1/ResplitResponse.js';
export type { RotateResponse__Output } from './generated/strongroom/tokenizer/v1/RotateResponse.js';
export type { ChainAuditResponse__Output } from './generated/strongroom/tokenizer/v1/ChainAuditResponse.js';
export type { SignCheckpointResponse__Output } from './generated/strongroom/tokenizer/v1/SignCheckpointResponse.js';
export type { AuditHighWaterResponse__Output } from './generated/strongroom/tokenizer/v1/AuditHighWaterResponse.js';
export type { RetireResponse__Output } from './generated/strongroom/tokenizer/v1/RetireResponse.js';
export type { ResealLegacyRequest, ResealLegacyRequest__Output } from './generated/strongroom/tokenizer/v1/ResealLegacyRequest.js';
export type { ResealLegacyResponse__Output } from './generated/strongroom/tokenizer/v1/ResealLegacyResponse.js';
export type { MakeTenantKeyResponse__Output } from './generated/strongroom/tokenizer/v1/MakeTenantKeyResponse.js';
export type { RevokeTenantKekResponse__Output } from './generated/strongroom/tokenizer/v1/RevokeTenantKekResponse.js';
export type { TenantKekStatusResponse__Output } from './generated/strongroom/tokenizer/v1/TenantKekStatusResponse.js';
export type { TokenizerClient as TokenizerGrpcClient, TokenizerHandlers } from './generated/strongroom/tokenizer/v1/Tokenizer.js';
export type { HealthCheckRequest__Output } from './generated/grpc/health/v1/HealthCheckRequest.js';
export type { HealthCheckResponse, HealthCheckResponse__Output } from './generated/grpc/health/v1/HealthCheckResponse.js';
export type { HealthHandlers } from './generated/grpc/health/v1/Health.js';

/** The kinds a caller may send: the zero value means "not set", and the tokenizer refuses it. */
export type IndexKind = Exclude<IndexKind__Output, 'INDEX_KIND_UNSPECIFIED'>;
/** The formats a caller may send: the zero value means "not set", and the tokenizer refuses it. */
export type TokenFormat = Exclude<TokenFormat__Output, 'TOKEN_FORMAT_UNSPECIFIED'>;

// Found beside this file, both as source (proto/loader.ts) and as built code (dist/proto/loader.js, where the
// build copies the .proto files).
const PROTO_FILES = ['tokenizer.proto', 'health.proto'].map((name) => fileURLToPath(new URL(name, import.meta.url)));

/** Fully qualified name, as the health service and service configs spell it. */
export const TOKENIZER_SERVICE = 'strongroom.tokenizer.v1.Tokenizer';

/**
 * Field names as in the proto (row_id), enums as their names, bytes as Buffers, absent fields as defaults.
 * The generated types describe exactly this: change an option here and the generator's flags must follow
 * (test/unit/proto/generated.test.ts checks both).
 */
export const loaderOptions = {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
} satisfies protoLoader.Options;

/** Bulk requests carry thousands of 5 KB records: far past gRPC's 4 MiB default, on both sides. */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export const channelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
} satisfies grpc.ChannelOptions;

export interface TokenizerPackage {
  Tokenizer: TokenizerProto['strongroom']['tokenizer']['v1']['Tokenizer'];
  Health: HealthProto['grpc']['health']['v1']['Health'];
}

let loaded: TokenizerPackage | undefined;

/** Both services, loaded once per process with the shared options. */
export function loadTokenizerPackage(): TokenizerPackage {
  if (!loaded) {
    const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(PROTO_FILES, loaderOptions)) as unknown as TokenizerProto & HealthProto;
    loaded = { Tokenizer: pkg.strongroom.tokenizer.v1.Tokenizer, Health: pkg.grpc.health.v1.Health };
  }
  return loaded;
}
