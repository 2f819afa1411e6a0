// POST /v2/<OperationName>: find the operation, authenticate from the header, resolve the tenant, only then read
// the body (within the caller's limit), execute, wrap in the envelope.
import type { Context } from 'koa';
import type { Services } from '../vault/services.js';
import { operations } from '../ops/index.js';
import type { OpDefinition } from '../ops/define.js';
import { admitBeforeBody, executeOperation, executePublicOperation, type Caller } from '../ops/execute.js';
import { requestFacts } from './request-facts.js';
import { operationDuration } from '../metrics.js';
import { badRequest, notFound, Messages, NotFoundError, TooManyRequestsError, VaultError } from '../errors.js';
import { rawHeaders } from './raw.js';
import { rawOf } from '../ops/raw-answer.js';
import { authenticateCaller, bodyReader, leaveBodyUnread, refusedBody } from './body.js';
import { atMinimumRate, LargeBodies } from './uploads.js';
import { bodyBytes, type BodyHolder, type BodyMemory } from './body-memory.js';
import { addressKey } from '../vault/limits.js';
import { didYouMean } from '../vault/nearest-names.js';
import { unknownFieldWarnings, withWarnings } from '../ops/unknown-fields.js';

const byName = new Map(operations.map((op) => [op.name, op]));
const OPERATION_NAMES = operations.map((op) => op.name);

/** `memory`: the process's budget for bodies in memory, which v1's bodies share (server.ts). */
export function v2Handler(services: Services, memory: BodyMemory) {
  const { limits } = services.config;
  const readDefault = bodyReader(limits.body);
  const readFile = bodyReader(services.config.files.bodyLimit);
  const largeBodies = new LargeBodies(limits);
  const read = withinBudget(memory, limits);
  const servePublic = publicServer(services, read);

  /**
   * The body of an authenticated call, and what it holds (its bytes of the body budget, the large-body slot if it
   * may be large): the gate's verdict from the header comes first, so a caller refused whatever it sends takes no
   * slot and sends no byte.
   */
  const readAuthenticated = async (ctx: Context, op: OpDefinition, caller: Caller): Promise<{ body: unknown; release: () => void }> => {
    const { principal, tenantId } = caller;
    const holder = { caller: `credential:${principal.credentialId}`, tenant: `tenant:${tenantId}` };
    if (!op.largeBody || Number(ctx.get('content-length') || Infinity) <= limits.body) return read(ctx, holder, limits.body, readDefault);
    await unread(ctx, admitBeforeBody(services, op, caller));
    const admin = principal.kind === 'root' || principal.kind === 'tenant-admin';
    const slot = largeBodies.take(ctx, { tenantId, credential: holder.caller, admin });
    try {
      const { body, release } = await read(ctx, holder, services.config.files.bodyLimit, readFile);
      return { body, release: () => (release(), slot()) };
    } catch (err) {
      slot();
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
        // The contract's words, then the names nearest the one asked for: never the name itself echoed back.
        throw notFound(`${Messages.unknownOperation}${didYouMean(name, OPERATION_NAMES)}`);
      }
      if (op.access === 'public') {
        ctx.status = 200;
        // The envelope's status is the call's own, whatever the answer holds.
        const { result, body } = await servePublic(ctx, op);
        ctx.body = { ...withWarnings(result, unknownFieldWarnings(op, body)), status: 'ok' };
        return;
      }
      const principal = await authenticateCaller(services, ctx, ctx.get('x-bunker-token') || undefined, op.name);
      const tenantId = await unread(ctx, services.tenants.resolve(principal, ctx.get('x-bunker-tenant') || undefined, ctx.host));
      const caller: Caller = { principal, tenantId, request: requestFacts(ctx) };
      let input: Record<string, unknown>;
      try {
        const got = await readAuthenticated(ctx, op, caller);
        release = got.release;
        input = bodyObject(got.body);
      } catch (err) {
        throw await refusedBody(services, op.name, caller, err);
      }
      const result = await executeOperation(services, op, caller, input);
      ctx.status = 200;
      // FileGet with `raw`: the file's bytes with download headers, and no JSON.
      const raw = rawOf(result);
      if (raw) {
        ctx.set(rawHeaders(raw));
        ctx.body = raw.body;
        return;
      }
      ctx.body = { ...withWarnings(result, unknownFieldWarnings(op, input)), status: 'ok' };
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
 * Public calls. Login calls spend the client address's calls of that operation before the body is read (so
 * CaptchaCreate, free, does not spend the calls that follow a solved challenge), then (in the operation) the calls
 * of the tenant the request named: the name itself is the bucket, known or not. A UserLogin naming a live loginid
 * is served through both (the loginid is proof of a solved challenge): past the address's calls its (small) body
 * is read to see. SharedRecordGet spends the address's calls; a hit is served, and only a miss counts as a refusal
 * of the address (throttled past the budget).
 */
function publicServer(services: Services, read: BudgetedRead) {
  const { publicBody } = services.config.limits;
  const readPublic = bodyReader(publicBody);
  return async function servePublic(ctx: Context, op: OpDefinition): Promise<{ result: Record<string, unknown>; body: Record<string, unknown> }> {
    const tenant = await services.tenants.resolvePublic(ctx.get('x-bunker-tenant') || undefined, ctx.host);
    const address = ctx.ip;
    if (op.rateLimited === 'shared') await unread(ctx, services.limits.sharedCall(address));
    const spent = op.rateLimited === true ? await unread(ctx, addressCall(services, op, address)) : undefined;
    const named = ctx.get('x-bunker-tenant').trim().toLowerCase() || services.tenants.nameInHost(ctx.host);
    const spendCalls = op.rateLimited === true ? async () => {
      if (spent) throw spent;
      await services.limits.publicTenant(named ? `name:${named}` : 'unnamed');
    } : undefined;
    // Anonymous bodies are one tenant's worth of the budget together, apart from every tenant's own callers.
    const got = await read(ctx, { caller: `address:${addressKey(address)}`, tenant: 'anonymous' }, publicBody, readPublic);
    try {
      const body = bodyObject(got.body);
      return { result: await executePublicOperation(services, op, { ...tenant, address: addressKey(address), request: requestFacts(ctx) }, body, spendCalls), body };
    } catch (err) {
      if (op.rateLimited === 'shared' && err instanceof NotFoundError) await services.limits.refused({ address });
      throw err;
    } finally {
      got.release();
    }
  };
}

/**
 * One login call of `op` from `address`. Past the address's calls, an operation that may name an attempt under way
 * (UserLogin's loginid) is let through to have that looked at: the refusal is answered unless it does.
 */
async function addressCall(services: Services, op: OpDefinition, address: string): Promise<TooManyRequestsError | undefined> {
  try {
    await services.limits.publicAddress(address, op.name);
    return undefined;
  } catch (err) {
    if (op.attemptUnderWay && err instanceof TooManyRequestsError) return err;
    throw err;
  }
}

type BudgetedRead = (ctx: Context, holder: BodyHolder, limit: number, reader: (ctx: Context) => Promise<unknown>) => Promise<{ body: unknown; release: () => void }>;

/**
 * Reads a body within the body budget (its bytes reserved before one is read, 503 past the budget or a share) and
 * the minimum rate: the body, and the release of its bytes, for when its request ends.
 */
function withinBudget(memory: BodyMemory, settings: Parameters<typeof atMinimumRate>[1]): BudgetedRead {
  return async (ctx, holder, limit, reader) => {
    const release = memory.reserve(ctx, holder, bodyBytes(ctx, limit));
    try {
      return { body: await atMinimumRate(ctx, settings, () => reader(ctx)), release };
    } catch (err) {
      release();
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
