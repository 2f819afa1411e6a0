// The only span attributes either process exports: names, ids, outcomes and sizes, never a value a caller sent.
// The SDK's processor (proto/tracing-sdk.ts) drops every other attribute, on spans, events and links alike, and
// every status message (an error's text may quote its input): code that sets one by mistake exports nothing of it.
import type { Attributes } from '@opentelemetry/api';

export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set([
  // The HTTP request: its method and route template (never the path, which may hold an identity), status, sizes.
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'http.request.body.size',
  'http.response.body.size',
  // The operation: its name, the tenant's id, how it ended (ok, client_error, server_error) and its status code.
  'strongroom.operation',
  'strongroom.tenant_id',
  'strongroom.outcome',
  'strongroom.status_code',
  // A tokenizer call: the method, its gRPC status, how many items and bytes it carried.
  'rpc.system',
  'rpc.service',
  'rpc.method',
  'rpc.grpc.status_code',
  'strongroom.tokenizer.items',
  'strongroom.tokenizer.bytes',
  // A statement: its kind and first table (store/statement-names.ts), never its text or parameters; rows back.
  'db.system.name',
  'db.operation.name',
  'db.collection.name',
  'db.query.summary',
  'db.response.returned_rows',
  // The class of an error (a status word or an error's class name), never its message.
  'error.type',
]);

/** The attributes of `attributes` on the allow-list (a new object; the input is left alone). */
export function allowedOnly(attributes: Attributes | undefined): Attributes {
  const out: Attributes = {};
  if (!attributes) return out;
  for (const key of Object.keys(attributes)) if (ALLOWED_ATTRIBUTES.has(key)) out[key] = attributes[key];
  return out;
}
