// POST /v2/<OperationName>: find the operation, authenticate, resolve the tenant, execute, wrap in the envelope.
import type { Context } from 'koa';
import type { Services } from '../vault/services.js';
import { operations } from '../ops/index.js';
import { executeOperation, executePublicOperation } from '../ops/execute.js';
import { operationDuration } from '../metrics.js';
import { badRequest, notFound, Messages, VaultError } from '../errors.js';
import { rawHeaders } from './raw.js';
import { rawOf } from '../ops/raw-answer.js';

const byName = new Map(operations.map((op) => [op.name, op]));

export function v2Handler(services: Services) {
  return async function v2(ctx: Context) {
    const name = String(ctx.params.op ?? '');
    const op = byName.get(name);
    // Unknown names share one label so a scanner cannot blow up the metrics' cardinality.
    ctx.state.routeLabel = op ? `/v2/${op.name}` : '/v2/:op';
    const started = process.hrtime.bigint();
    let status = 'ok';
    try {
      if (!op) throw notFound(Messages.unknownOperation);
      const body = bodyObject(ctx.request.body);
      if (op.access === 'public') {
        const tenantId = await services.tenants.resolvePublic(ctx.get('x-bunker-tenant') || undefined, ctx.host);
        ctx.status = 200;
        ctx.body = { status: 'ok', ...(await executePublicOperation(services, op, tenantId, body)) };
        return;
      }
      const principal = await services.credentials.authenticate(ctx.get('x-bunker-token') || undefined);
      const tenantId = await services.tenants.resolve(principal, ctx.get('x-bunker-tenant') || undefined, ctx.host);
      const result = await executeOperation(services, op, principal, tenantId, body);
      ctx.status = 200;
      // FileGet with `raw`: the file's bytes with download headers, and no JSON.
      const raw = rawOf(result);
      if (raw) {
        ctx.set(rawHeaders(raw));
        ctx.body = raw.body;
        return;
      }
      ctx.body = { status: 'ok', ...result };
    } catch (err) {
      status = err instanceof VaultError && err.status < 500 ? 'client_error' : 'server_error';
      throw err;
    } finally {
      if (op) operationDuration.observe({ operation: op.name, status }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}

/** An absent body is `{}`; anything but a JSON object is a 400. */
function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest(Messages.badBody);
  return body as Record<string, unknown>;
}
