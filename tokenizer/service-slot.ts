// The Tokenizer service's gRPC handlers, bound before the keyring may be open: until a service fills the slot (an
// HSM that has not answered yet), every call answers UNAVAILABLE, so the api's /readyz says 503 and nothing waits.
import * as grpc from '@grpc/grpc-js';
import type { TokenizerHandlers } from '../proto/loader.js';
import type { TokenizerService } from './service.js';

const SEALED = { code: grpc.status.UNAVAILABLE, details: 'the keyring is sealed: its key custody has not answered yet' };

type AnyHandler = (call: unknown, callback?: (err: Partial<grpc.StatusObject> | null) => void) => void;

export class ServiceSlot {
  private service: TokenizerService | undefined;
  private handlers: Record<string, AnyHandler> | undefined;

  get current(): TokenizerService | undefined {
    return this.service;
  }

  fill(service: TokenizerService): void {
    this.service = service;
    this.handlers = service.handlers() as unknown as Record<string, AnyHandler>;
  }

  /** One handler per method of `definition` (the loaded service), each passing to the service once there is one. */
  table(definition: grpc.ServiceDefinition): TokenizerHandlers {
    const table: Record<string, AnyHandler> = {};
    for (const [name, method] of Object.entries(definition)) {
      table[name] = (call, callback) => {
        const handler = this.handlers?.[name];
        if (handler) return handler(call, callback);
        // A stream ends with the status; a unary call is answered with it.
        if (method.requestStream || method.responseStream) return void (call as grpc.ServerDuplexStream<unknown, unknown>).emit('error', SEALED);
        return callback?.(SEALED);
      };
    }
    return table as unknown as TokenizerHandlers;
  }
}
