// The object store of the Kubernetes API double: one resourceVersion counter (like etcd's revision), a history of
// events that watches replay from a resourceVersion, and the API server's rules for updates, generations,
// finalizers, deletion and owner-reference garbage collection.
import { randomUUID } from 'node:crypto';
import { apiVersionOf, qualifiedName, type KObject, type ResourceType } from './resources.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export interface Selector {
  matches(obj: KObject): boolean;
}

interface HistoryEntry {
  rv: number;
  type: ResourceType;
  event: WatchEventType;
  object: KObject;
  /** The object before this change, to tell watchers with selectors when it moved out of their view. */
  before: KObject | undefined;
}

interface Watcher {
  type: ResourceType;
  namespace: string | undefined;
  selector: Selector;
  send(event: WatchEventType, object: KObject): void;
}

const clone = <T>(v: T): T => structuredClone(v);
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Everything that is not metadata or status: a change here bumps metadata.generation. */
function specPart(obj: KObject): string {
  const { metadata: _m, status: _s, ...rest } = obj;
  return stableJson(rest);
}

export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export class Store {
  private rv = 100;
  private compactedThrough = 0;
  private readonly objects = new Map<ResourceType, Map<string, KObject>>();
  private history: HistoryEntry[] = [];
  private readonly watchers = new Set<Watcher>();

  constructor(readonly types: readonly ResourceType[]) {
    for (const t of types) this.objects.set(t, new Map());
  }

  currentVersion(): string {
    return String(this.rv);
  }

  /** Forgets the history: a watch from any earlier resourceVersion now gets 410 Gone (Expired). */
  compact(): void {
    this.compactedThrough = this.rv;
    this.history = [];
  }

  get(type: ResourceType, namespace: string, name: string): KObject {
    const obj = this.objects.get(type)!.get(`${namespace}/${name}`);
    if (!obj) throw new ApiError(404, 'NotFound', `${qualifiedName(type)} "${name}" not found`, this.details(type, name));
    return clone(obj);
  }

  find(type: ResourceType, namespace: string, name: string): KObject | undefined {
    const obj = this.objects.get(type)!.get(`${namespace}/${name}`);
    return obj && clone(obj);
  }

  list(type: ResourceType, namespace: string | undefined, selector: Selector): KObject[] {
    return [...this.objects.get(type)!.values()]
      .filter((o) => (namespace === undefined || o.metadata.namespace === namespace) && selector.matches(o))
      .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`))
      .map(clone);
  }

  create(type: ResourceType, namespace: string, body: KObject): KObject {
    const obj = this.withTypeMeta(type, clone(body));
    const meta = obj.metadata ?? (obj.metadata = {});
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomUUID().slice(0, 5)}`;
    this.checkName(type, meta.name);
    if (type.namespaced) {
      if (meta.namespace && meta.namespace !== namespace) {
        throw new ApiError(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace;
    }
    const key = `${namespace}/${meta.name}`;
    if (this.objects.get(type)!.has(key)) throw new ApiError(409, 'AlreadyExists', `${qualifiedName(type)} "${meta.name}" already exists`, this.details(type, meta.name));
    // The server owns these fields; what a client sends for them is dropped.
    for (const f of ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'managedFields', 'selfLink']) delete meta[f];
    if (type.statusSubresource) delete obj.status;
    meta.uid = randomUUID();
    meta.creationTimestamp = now();
    if (type.generation) meta.generation = 1;
    this.admit(type, obj, undefined);
    return this.commit(type, key, obj, 'ADDED', undefined);
  }

  /**
   * PUT semantics, also the last step of every PATCH. `subresource` "status" takes only the status from `body`;
   * the main resource of a type with a status subresource keeps the stored status.
   */
  update(type: ResourceType, namespace: string, name: string, body: KObject, subresource?: 'status'): KObject {
    const key = `${namespace}/${name}`;
    const old = this.objects.get(type)!.get(key);
    if (!old) throw new ApiError(404, 'NotFound', `${qualifiedName(type)} "${name}" not found`, this.details(type, name));
    if (body.metadata?.name !== undefined && body.metadata.name !== name) {
      throw new ApiError(400, 'BadRequest', `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    const sent = body.metadata?.resourceVersion;
    if (sent === undefined || sent === '') {
      if (type.custom) {
        throw new ApiError(422, 'Invalid', `${type.kind}.${type.group} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`, this.details(type, name));
      }
    } else if (sent !== old.metadata.resourceVersion) {
      throw this.conflict(type, name);
    }
    if (body.metadata?.uid !== undefined && body.metadata.uid !== old.metadata.uid) {
      throw new ApiError(409, 'Conflict', `Precondition failed: UID in precondition: ${body.metadata.uid}, UID in object meta: ${old.metadata.uid}`, this.details(type, name));
    }
    let next: KObject;
    if (subresource === 'status') {
      next = clone(old);
      if (body.status === undefined) delete next.status;
      else next.status = clone(body.status);
    } else {
      next = this.withTypeMeta(type, clone(body));
      next.metadata = { ...clone(body.metadata ?? {}) };
      for (const f of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace', 'name']) {
        if (old.metadata[f] === undefined) delete next.metadata[f];
        else next.metadata[f] = old.metadata[f];
      }
      if (type.statusSubresource) {
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
      if (old.metadata.deletionTimestamp) {
        const added = (next.metadata.finalizers ?? []).filter((f: string) => !(old.metadata.finalizers ?? []).includes(f));
        if (added.length > 0) {
          throw new ApiError(422, 'Invalid', `${type.kind} "${name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`);
        }
      }
    }
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    this.admit(type, next, old);
    if (type.generation && specPart(next) !== specPart(old)) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    // A write that changes nothing is not stored: no new resourceVersion, no watch event.
    if (stableJson(next) === stableJson(old)) return clone(old);
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
      return this.remove(type, key, next);
    }
    return this.commit(type, key, next, 'MODIFIED', old);
  }

  delete(type: ResourceType, namespace: string, name: string, preconditions: { uid?: string; resourceVersion?: string } = {}): { object: KObject; gone: boolean } {
    const key = `${namespace}/${name}`;
    const old = this.objects.get(type)!.get(key);
    if (!old) throw new ApiError(404, 'NotFound', `${qualifiedName(type)} "${name}" not found`, this.details(type, name));
    if (preconditions.uid && preconditions.uid !== old.metadata.uid) {
      throw new ApiError(409, 'Conflict', `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${old.metadata.uid}`, this.details(type, name));
    }
    if (preconditions.resourceVersion && preconditions.resourceVersion !== old.metadata.resourceVersion) throw this.conflict(type, name);
    if ((old.metadata.finalizers ?? []).length > 0) {
      if (old.metadata.deletionTimestamp) return { object: clone(old), gone: false };
      const next = clone(old);
      next.metadata.deletionTimestamp = now();
      next.metadata.deletionGracePeriodSeconds = 0;
      // As the API server's BeforeDelete does, so controllers that watch generation notice the deletion.
      if (type.generation) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
      return { object: this.commit(type, key, next, 'MODIFIED', old), gone: false };
    }
    return { object: this.remove(type, key, clone(old)), gone: true };
  }

  /** Streams events after `resourceVersion` (or the current state as ADDED when there is none); returns a stop function. */
  watch(type: ResourceType, namespace: string | undefined, selector: Selector, resourceVersion: string | undefined, send: Watcher['send']): () => void {
    const watcher: Watcher = { type, namespace, selector, send };
    if (!resourceVersion || resourceVersion === '0') {
      for (const obj of this.list(type, namespace, selector)) send('ADDED', obj);
    } else {
      const from = Number(resourceVersion);
      if (!Number.isInteger(from)) throw new ApiError(400, 'BadRequest', `invalid resource version: ${resourceVersion}`);
      if (from < this.compactedThrough) {
        throw new ApiError(410, 'Expired', `too old resource version: ${resourceVersion} (${this.compactedThrough})`);
      }
      for (const h of this.history) if (h.rv > from && h.type === type) this.deliver(watcher, h);
    }
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  private deliver(w: Watcher, h: HistoryEntry): void {
    if (w.namespace !== undefined && h.object.metadata.namespace !== w.namespace) return;
    const now = w.selector.matches(h.object);
    const before = h.before !== undefined && w.selector.matches(h.before);
    if (h.event === 'DELETED') {
      if (now) w.send('DELETED', clone(h.object));
    } else if (now) {
      w.send(h.event === 'MODIFIED' && !before ? 'ADDED' : h.event, clone(h.object));
    } else if (before) {
      // Moved out of the watcher's selector: to it, the object is gone.
      w.send('DELETED', clone(h.object));
    }
  }

  private commit(type: ResourceType, key: string, obj: KObject, event: WatchEventType, before: KObject | undefined): KObject {
    obj.metadata.resourceVersion = String(++this.rv);
    this.objects.get(type)!.set(key, obj);
    this.publish({ rv: this.rv, type, event, object: clone(obj), before: before && clone(before) });
    return clone(obj);
  }

  private remove(type: ResourceType, key: string, last: KObject): KObject {
    const before = this.objects.get(type)!.get(key);
    this.objects.get(type)!.delete(key);
    // A deletion is a revision of its own: the DELETED event carries it.
    last.metadata.resourceVersion = String(++this.rv);
    this.publish({ rv: this.rv, type, event: 'DELETED', object: clone(last), before });
    const uid = last.metadata.uid;
    // The garbage collector works in the background, as in a cluster.
    setImmediate(() => this.collectDependents(uid));
    return clone(last);
  }

  private publish(entry: HistoryEntry): void {
    this.history.push(entry);
    for (const w of this.watchers) if (w.type === entry.type) this.deliver(w, entry);
  }

  /** Background cascading deletion: dependents whose every owner is gone are deleted; others lose the reference. */
  private collectDependents(uid: string): void {
    const alive = new Set<string>();
    for (const objs of this.objects.values()) for (const o of objs.values()) alive.add(o.metadata.uid);
    for (const type of this.types) {
      for (const obj of [...this.objects.get(type)!.values()]) {
        const refs: { uid: string }[] = obj.metadata.ownerReferences ?? [];
        if (!refs.some((r) => r.uid === uid)) continue;
        const remaining = refs.filter((r) => alive.has(r.uid));
        try {
          if (remaining.length === 0) this.delete(type, obj.metadata.namespace ?? '', obj.metadata.name);
          else this.update(type, obj.metadata.namespace ?? '', obj.metadata.name, { ...obj, metadata: { ...obj.metadata, ownerReferences: remaining } });
        } catch {
          // Changed or gone meanwhile: the next collection sees it again, as the real collector retries.
        }
      }
    }
  }

  private admit(type: ResourceType, obj: KObject, old: KObject | undefined): void {
    const errors = type.admit?.(obj, old) ?? [];
    if (errors.length > 0) {
      const name = obj.metadata.name;
      throw new ApiError(422, 'Invalid', `${type.kind}${type.group ? `.${type.group}` : ''} "${name}" is invalid: ${errors.join(', ')}`, {
        ...this.details(type, name),
        causes: errors.map((message) => ({ reason: 'FieldValueInvalid', message, field: message.split(':')[0] })),
      });
    }
  }

  private withTypeMeta(type: ResourceType, obj: KObject): KObject {
    const apiVersion = apiVersionOf(type);
    if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
      throw new ApiError(400, 'BadRequest', `the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`);
    }
    if (obj.kind !== undefined && obj.kind !== type.kind) {
      throw new ApiError(400, 'BadRequest', `the kind in the data (${obj.kind}) does not match the expected kind (${type.kind})`);
    }
    return { apiVersion, kind: type.kind, ...obj };
  }

  private checkName(type: ResourceType, name: unknown): void {
    if (typeof name !== 'string' || name === '') {
      throw new ApiError(422, 'Invalid', `${type.kind} "" is invalid: metadata.name: Required value: name or generateName is required`);
    }
    if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
      throw new ApiError(422, 'Invalid', `${type.kind} "${name}" is invalid: metadata.name: Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`);
    }
  }

  private conflict(type: ResourceType, name: string): ApiError {
    return new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedName(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      this.details(type, name),
    );
  }

  private details(type: ResourceType, name: string): Record<string, unknown> {
    return { name, group: type.group || undefined, kind: type.plural };
  }
}
