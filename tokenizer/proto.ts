// The one gRPC loader configuration, shared by the tokenizer server, the api's client and the tests.
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export const PROTO_PATH = fileURLToPath(new URL('../proto/tokenizer.proto', import.meta.url));
export const HEALTH_PROTO_PATH = fileURLToPath(new URL('../proto/health.proto', import.meta.url));

/** Fully qualified name, as the health service and service configs spell it. */
export const TOKENIZER_SERVICE = 'strongroom.tokenizer.v1.Tokenizer';

/** Field names as in the proto (row_id), enums as their names, bytes as Buffers, absent fields as defaults. */
export const loaderOptions: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
};

/** Bulk requests carry thousands of 5 KB records: far past gRPC's 4 MiB default, on both sides. */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export const channelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
} satisfies grpc.ChannelOptions;

export interface TokenizerPackage {
  Tokenizer: grpc.ServiceClientConstructor;
  Health: grpc.ServiceClientConstructor;
}

let loaded: TokenizerPackage | undefined;

/** Both services, loaded once per process with the shared options. */
export function loadTokenizerPackage(): TokenizerPackage {
  if (!loaded) {
    const pkg = grpc.loadPackageDefinition(protoLoader.loadSync([PROTO_PATH, HEALTH_PROTO_PATH], loaderOptions)) as any;
    loaded = { Tokenizer: pkg.strongroom.tokenizer.v1.Tokenizer, Health: pkg.grpc.health.v1.Health };
  }
  return loaded;
}
