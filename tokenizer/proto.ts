// The one gRPC loader configuration, shared by the tokenizer server and the api's client.
import { fileURLToPath } from 'node:url';
import type { Options } from '@grpc/proto-loader';

export const PROTO_PATH = fileURLToPath(new URL('../proto/tokenizer.proto', import.meta.url));
export const HEALTH_PROTO_PATH = fileURLToPath(new URL('../proto/health.proto', import.meta.url));

export const loaderOptions: Options = {
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
};
