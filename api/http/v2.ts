// POST /v2/<OperationName>: find the operation, authenticate from the header, resolve the tenant, only then read
// the body (within the caller's limit), execute, wrap in the envelope.
import type { Context } from 'koa';
import type { Services } from '../vault/services.js';
import { operations } from '../ops/index.js';
import type { OpDefinition } from '../ops/define.js';
import { admitBeforeBody, executeOperation, executePublicOperation } from '../ops/execute.js';
import { operationDuration } from '../metrics.js';
import { badRequest, notFound, Messages, NotFoundError, VaultError } from '../errors.js';
import type { Principal } from '../vault/credentials.js';
import { rawHeaders } from './raw.js';
import { rawOf } from '../ops/raw-answer.js';
import { authenticateCaller, bodyReader, leaveBodyUnread } from './body.js';
import { atMinimumRate, LargeBodies } from './uploads.js';

const byName = new Map(operations.map((op) => [op.name, op]));

export function v2Handler(services: Services) {
  const { limits } = services.config;
  const readDefault = bodyReader(limits.body);
  const readFile = bodyReader(services.config.files.bodyLimit);
  const largeBodies = new LargeBodies(limits);
  const servePublic = publicServer(services);

  /**
   * The body of an authenticated call, and the large-body slot it holds (if it may be large): the gate's verdict
   * from the header comes first, so a caller refused whatever it sends takes no slot and sends no byte.
   */
  const readAuthenticated = async (ctx: Context, op: OpDefinition, principal: Principal, tenantId: number): Promise<{ body: unknown; release: () => void }> => {
    if (!op.largeBody || Number(ctx.get('content-length') || Infinity) <= limits.body) return { body: await readDefault(ctx), release: () => {} };
    await unread(ctx, admitBeforeBody(services, op, principal, tenantId));
    const release = largeBodies.take(ctx, tenantId);
    try {
      return { body: await atMinimumRate(ctx, limits, () => readFile(ctx)), release };
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
        ctx.status = 200;
        // The envelope's status is the call's own, whatever the answer holds.
        ctx.body = { ...(await servePublic(ctx, op)), status: 'ok' };
        return;
      }
      const principal = await authenticateCaller(services, ctx, ctx.get('x-bunker-token') || undefined, op.name);
      const tenantId = await unread(ctx, services.tenants.resolve(principal, ctx.get('x-bunker-tenant') || undefined, ctx.host));
      const read = await readAuthenticated(ctx, op, principal, tenantId);
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

/**
 * Public calls. Login calls spend the client address's calls before the body is read, then (in the operation)
 * the calls of the tenant the request named: the name itself is the bucket, known or not. SharedRecordGet spends
 * the address's calls, and a miss counts as a refusal of the address (throttled past the budget).
 */
function publicServer(services: Services) {
  const readPublic = bodyReader(services.config.limits.publicBody);
  return async function servePublic(ctx: Context, op: OpDefinition): Promise<Record<string, unknown>> {
    const tenant = await services.tenants.resolvePublic(ctx.get('x-bunker-tenant') || undefined, ctx.host);
    const address = ctx.ip;
    if (op.rateLimited === 'shared') {
      services.limits.throttled({ address });
      await unread(ctx, services.limits.sharedCall(address));
    } else if (op.rateLimited) {
      await unread(ctx, services.limits.publicAddress(address));
    }
    const named = ctx.get('x-bunker-tenant').trim().toLowerCase() || services.tenants.nameInHost(ctx.host);
    const spendTenantCall = op.rateLimited === true ? () => services.limits.publicTenant(named ? `name:${named}` : 'unnamed') : undefined;
    const body = bodyObject(await readPublic(ctx));
    try {
      return await executePublicOperation(services, op, { ...tenant, address }, body, spendTenantCall);
    } catch (err) {
      if (op.rateLimited === 'shared' && err instanceof NotFoundError) await services.limits.refused({ address });
      throw err;
    }
  };
}

/** `work`, answered without reading the body if it fails. */
async function unread<T>(ctx: Context, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    leaveBodyUnread(ctx);
    throw err;
  }
}

/** An absent body is `{}`; anything but a JSON object is a 400. */
function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest(Messages.badBody);
  return body as Record<string, unknown>;
}
