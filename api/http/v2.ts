// POST /v2/<OperationName>: find the operation, authenticate from the header, resolve the tenant, only then read
// the body (within the caller's limit), execute, wrap in the envelope.
import type { Context } from 'koa';
import type { Services } from '../vault/services.js';
import { operations } from '../ops/index.js';
import type { OpDefinition } from '../ops/define.js';
import { executeOperation, executePublicOperation } from '../ops/execute.js';
import { operationDuration } from '../metrics.js';
import { badRequest, notFound, Messages, VaultError } from '../errors.js';
import { rawHeaders } from './raw.js';
import { rawOf } from '../ops/raw-answer.js';
import { authenticateCaller, bodyReader, LargeBodies, leaveBodyUnread } from './body.js';

const byName = new Map(operations.map((op) => [op.name, op]));

export function v2Handler(services: Services) {
  const { limits } = services.config;
  const readPublic = bodyReader(limits.publicBody);
  const readDefault = bodyReader(limits.body);
  const readFile = bodyReader(services.config.files.bodyLimit);
  const largeBodies = new LargeBodies(limits.largeBodies);
  /** The body of an authenticated call, and the large-body slot it holds (if it may be large). */
  const readAuthenticated = async (ctx: Context, op: OpDefinition): Promise<{ body: unknown; release: () => void }> => {
    if (!op.largeBody || Number(ctx.get('content-length') || Infinity) <= limits.body) return { body: await readDefault(ctx), release: () => {} };
    const release = largeBodies.take(ctx);
    try {
      return { body: await readFile(ctx), release };
    } catch (err) {
      release();
      throw err;
    }
  };

  return async function v2(ctx: Context) {
    const name = String(ctx.params.op ?? '');
    const op = byName.get(name);
    // Unknown names share one label so a scanner cannot blow up the metrics' cardinality.
    ctx.state.routeLabel = op ? `/v2/${op.name}` : '/v2/:op';
    const started = process.hrtime.bigint();
    let status = 'ok';
    let release = () => {};
    try {
      if (!op) {
        leaveBodyUnread(ctx);
        throw notFound(Messages.unknownOperation);
      }
      if (op.access === 'public') {
        const tenant = await services.tenants.resolvePublic(ctx.get('x-bunker-tenant') || undefined, ctx.host);
        if (op.rateLimited) {
          await services.limits.publicCall(ctx.ip, tenant.tenantId).catch((err: unknown) => {
            leaveBodyUnread(ctx);
            throw err;
          });
        }
        const body = bodyObject(await readPublic(ctx));
        ctx.status = 200;
        // The envelope's status is the call's own, whatever the answer holds.
        ctx.body = { ...(await executePublicOperation(services, op, tenant, body)), status: 'ok' };
        return;
      }
      const principal = await authenticateCaller(services, ctx, ctx.get('x-bunker-token') || undefined, op.name);
      const tenantId = await services.tenants.resolve(principal, ctx.get('x-bunker-tenant') || undefined, ctx.host).catch((err: unknown) => {
        leaveBodyUnread(ctx);
        throw err;
      });
      const read = await readAuthenticated(ctx, op);
      release = read.release;
      const result = await executeOperation(services, op, principal, tenantId, bodyObject(read.body));
      ctx.status = 200;
      // FileGet with `raw`: the file's bytes with download headers, and no JSON.
      const raw = rawOf(result);
      if (raw) {
        ctx.set(rawHeaders(raw));
        ctx.body = raw.body;
        return;
      }
      ctx.body = { ...result, status: 'ok' };
    } catch (err) {
      status = err instanceof VaultError && err.status < 500 ? 'client_error' : 'server_error';
      throw err;
    } finally {
      release();
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
