// The HTTP face of the Kubernetes API double: the paths, verbs, query parameters, content types and Status
// errors of the real API server, as @kubernetes/client-node sends and reads them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import jsonPatch from 'fast-json-patch';
import mergePatch from 'json-merge-patch';
import { allows, forbiddenMessage, type RequestAttributes, type User } from './authz.js';
import { apiVersionOf, DecodeError, type KObject, type ResourceType } from './resources.js';
import { parseSelectors } from './selectors.js';
import { ApiError, type Store } from './store.js';

export interface RequestRecord extends RequestAttributes {
  user: string;
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string | undefined;
  status: number;
}

export interface OpenWatch {
  attributes: RequestAttributes;
  user: string;
  query: Record<string, string>;
  response: ServerResponse;
}

/** New watches that match wait, unanswered, until the hold is released: a stream that is down for a while. */
export interface WatchHold {
  matches(attributes: RequestAttributes): boolean;
  waiting: (() => void)[];
}

export interface ServerOptions {
  store: Store;
  /** Bearer token to user; undefined: every request is an unrestricted anonymous admin. */
  users?: Map<string, User>;
  log: RequestRecord[];
  watches: Set<OpenWatch>;
  holds: Set<WatchHold>;
}

const JSON_TYPE = 'application/json';

function status(code: number, reason: string, message: string, details?: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, 'BadRequest', `couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

interface Route {
  type: ResourceType;
  namespace: string | undefined;
  name: string | undefined;
  subresource: 'status' | undefined;
}

function route(types: readonly ResourceType[], pathname: string): Route | undefined {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let group: string;
  let version: string | undefined;
  let rest: string[];
  if (parts[0] === 'api') [group, version, rest] = ['', parts[1], parts.slice(2)];
  else if (parts[0] === 'apis') [group, version, rest] = [parts[1] ?? '', parts[2], parts.slice(3)];
  else return undefined;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = rest;
  const type = types.find((t) => t.group === group && t.version === version && t.plural === plural);
  if (!type || extra.length > 0) return undefined;
  if (subresource !== undefined && !(subresource === 'status' && type.statusSubresource)) return undefined;
  if (!type.namespaced && namespace !== undefined) return undefined;
  if (type.namespaced && namespace === undefined && name !== undefined) return undefined;
  return { type, namespace, name, subresource: subresource as 'status' | undefined };
}

function verbOf(method: string, r: Route, watch: boolean): string {
  switch (method) {
    case 'GET':
      return r.name ? 'get' : watch ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return r.name ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

function mediaType(req: IncomingMessage): string | undefined {
  return req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
}

function applyPatch(type: ResourceType, contentType: string | undefined, current: KObject, patch: any): KObject {
  switch (contentType) {
    case 'application/merge-patch+json':
      return mergePatch.apply(structuredClone(current), patch) as KObject;
    case 'application/strategic-merge-patch+json':
      // Strategic merge differs from a merge patch only on lists with merge keys, which no type here has.
      if (!type.custom) return mergePatch.apply(structuredClone(current), patch) as KObject;
      break;
    case 'application/json-patch+json':
      if (!Array.isArray(patch)) throw new ApiError(400, 'BadRequest', 'json patch must be an array of operations');
      try {
        return jsonPatch.applyPatch(structuredClone(current), patch, true, false).newDocument as KObject;
      } catch (err) {
        throw new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${(err as Error).name}`);
      }
    default:
  }
  throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json${type.custom ? '' : ', application/strategic-merge-patch+json'}`);
}

function listBody(type: ResourceType, items: KObject[], resourceVersion: string, cont?: string) {
  // Built-in list items carry no kind; custom resources keep theirs, as the API server answers.
  const shaped = type.custom ? items : items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
  return { apiVersion: apiVersionOf(type), kind: `${type.kind}List`, metadata: { resourceVersion, ...(cont ? { continue: cont } : {}) }, items: shaped };
}

async function serve(opts: ServerOptions, req: IncomingMessage, res: ServerResponse, record: RequestRecord): Promise<void> {
  const { store } = opts;
  const url = new URL(req.url ?? '/', 'http://double');
  const query = Object.fromEntries(url.searchParams);
  record.query = query;
  if (req.method === 'GET' && ['/healthz', '/livez', '/readyz'].includes(url.pathname)) {
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    return;
  }
  if (req.method === 'GET' && url.pathname === '/version') return send(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0-double' });

  let user: User = { name: 'system:anonymous' };
  if (opts.users) {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const found = token ? opts.users.get(token) : undefined;
    if (!found) return send(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    user = found;
  }
  record.user = user.name;

  const r = route(store.types, url.pathname);
  if (!r) return send(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  const watch = query.watch === 'true' || query.watch === '1';
  const attributes: RequestAttributes = {
    verb: verbOf(req.method ?? 'GET', r, watch),
    group: r.type.group,
    resource: r.type.plural,
    subresource: r.subresource,
    namespace: r.namespace,
    name: r.name,
  };
  Object.assign(record, attributes);
  if (!allows(user, attributes)) {
    return send(res, 403, status(403, 'Forbidden', forbiddenMessage(user, attributes), { name: r.name, group: r.type.group, kind: r.type.plural }));
  }
  if (query.dryRun) throw new ApiError(400, 'BadRequest', 'dryRun is not served by this double');
  const ns = r.namespace ?? '';

  switch (attributes.verb) {
    case 'get':
      return send(res, 200, store.get(r.type, ns, r.name!));
    case 'list': {
      const items = store.list(r.type, r.namespace, parseSelectors(url.searchParams.get('labelSelector'), url.searchParams.get('fieldSelector')));
      const start = query.continue ? Number(Buffer.from(query.continue, 'base64url').toString()) : 0;
      const limit = query.limit ? Number(query.limit) : 0;
      const page = limit > 0 ? items.slice(start, start + limit) : items.slice(start);
      const more = limit > 0 && start + limit < items.length;
      return send(res, 200, listBody(r.type, page, store.currentVersion(), more ? Buffer.from(String(start + limit)).toString('base64url') : undefined));
    }
    case 'watch': {
      const hold = [...opts.holds].find((h) => h.matches(attributes));
      if (hold) await new Promise<void>((resolve) => hold.waiting.push(resolve));
      return startWatch(opts, r, attributes, user, query, url, res);
    }
    case 'create': {
      if (mediaType(req) !== JSON_TYPE) throw unsupported();
      const body = parseJson(await readBody(req));
      return send(res, 201, store.create(r.type, ns, body));
    }
    case 'update': {
      if (mediaType(req) !== JSON_TYPE) throw unsupported();
      const body = parseJson(await readBody(req));
      return send(res, 200, store.update(r.type, ns, r.name!, body, r.subresource));
    }
    case 'patch': {
      const patch = parseJson(await readBody(req));
      const current = store.get(r.type, ns, r.name!);
      const patched = applyPatch(r.type, mediaType(req), current, patch);
      return send(res, 200, store.update(r.type, ns, r.name!, patched, r.subresource));
    }
    case 'delete': {
      const text = await readBody(req);
      const options = text ? parseJson(text) : {};
      const { object, gone } = store.delete(r.type, ns, r.name!, options.preconditions ?? {});
      if (gone && !r.type.custom) {
        return send(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: r.name, kind: r.type.plural, uid: object.metadata.uid } });
      }
      return send(res, 200, object);
    }
    default:
      return send(res, 405, status(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`));
  }
}

function unsupported(): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
}

function startWatch(opts: ServerOptions, r: Route, attributes: RequestAttributes, user: User, query: Record<string, string>, url: URL, res: ServerResponse): void {
  const selector = parseSelectors(url.searchParams.get('labelSelector'), url.searchParams.get('fieldSelector'));
  // Headers go out at once: the client waits for them before it reads a single event.
  res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  const write = (type: string, object: unknown) => {
    if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify({ type, object })}\n`);
  };
  let stop: () => void = () => {};
  try {
    stop = opts.store.watch(r.type, r.namespace, selector, query.resourceVersion, write);
  } catch (err) {
    // After authorisation, watch errors (410 Expired among them) arrive as an ERROR event, then the stream ends.
    const e = err instanceof ApiError ? err : new ApiError(500, 'InternalError', (err as Error).message);
    write('ERROR', status(e.code, e.reason, e.message));
    res.end();
    return;
  }
  const open: OpenWatch = { attributes, user: user.name, query, response: res };
  opts.watches.add(open);
  const done = () => {
    stop();
    opts.watches.delete(open);
  };
  res.on('close', done);
  const timeout = Number(query.timeoutSeconds);
  if (timeout > 0) setTimeout(() => res.end(), timeout * 1000).unref();
}

export function createDoubleServer(opts: ServerOptions): Server {
  return createServer((req, res) => {
    const record: RequestRecord = {
      user: 'system:anonymous',
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://double').pathname,
      query: {},
      contentType: mediaType(req),
      status: 0,
      verb: '',
      group: '',
      resource: '',
      subresource: undefined,
      namespace: undefined,
      name: undefined,
    };
    opts.log.push(record);
    res.on('finish', () => (record.status = res.statusCode));
    res.on('close', () => (record.status ||= res.statusCode));
    serve(opts, req, res, record).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof ApiError) return send(res, err.code, status(err.code, err.reason, err.message, err.details));
      if (err instanceof DecodeError) return send(res, 400, status(400, 'BadRequest', err.message));
      send(res, 500, status(500, 'InternalError', `an error on the server ("${(err as Error).message}") has prevented the request from succeeding`));
    });
  });
}
