// An in-process Kubernetes API server double for tests: real HTTP on 127.0.0.1, the built-ins the operator uses
// (Secrets, Events, ConfigMaps, Leases) and the Strongroom CRDs read from charts/strongroom/crds.
//
// Faithful to the API server in: paths and verbs; list (limit/continue) and watch with resourceVersion, replay of
// history, 410 Expired as an ERROR event for a compacted resourceVersion; 409 on a stale resourceVersion (PUT, and
// PATCH carrying one); merge and JSON patch; the status subresource; metadata.generation; finalizers and
// deletionTimestamp; background owner-reference garbage collection; CRD schema defaulting, pruning, validation, the
// `self == oldSelf` rule and list-map keys; bearer-token authentication and RBAC.
// Not served: namespaces as objects (every namespace exists), server-side apply, dryRun, other CEL rules,
// admission webhooks. Strategic merge patch of built-ins is served as a merge patch (no type here has merge keys).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import YAML from 'yaml';
import type { PolicyRule, RequestAttributes, User } from './authz.js';
import { defaultTypes, type KObject, type ResourceType } from './resources.js';
import { createDoubleServer, type OpenWatch, type RequestRecord, type WatchHold } from './server.js';
import { Store } from './store.js';

export type { KObject, PolicyRule, RequestAttributes, RequestRecord, User };

export interface KubeDouble {
  url: string;
  store: Store;
  /** Every request served, in order. */
  requests: RequestRecord[];
  /** The resource type served under this plural (and group, when two share a plural). */
  type(plural: string, group?: string): ResourceType;
  /** Lets a bearer token in, as this user with these rules (all rules undefined: unrestricted). */
  addUser(token: string, user: User): void;
  /** Writes a kubeconfig that reaches this server over plain http with `token`; returns its path. */
  writeKubeconfig(dir: string, opts: { token?: string; namespace?: string; name?: string }): string;
  /** Watches open now. */
  openWatches(): OpenWatch[];
  /** Ends open watch streams: `end` closes them cleanly, `destroy` cuts the connection. Returns how many. */
  killWatches(how?: 'end' | 'destroy', filter?: (w: OpenWatch) => boolean): number;
  /**
   * Holds new watch requests that match (they get no answer yet), until `release`: the stream stays down while
   * the test changes things. `waiting` counts the requests held.
   */
  holdWatches(matches: (request: RequestAttributes) => boolean): { waiting(): number; release(): void };
  /** Forgets the event history, so a watch from an older resourceVersion is answered 410 Expired. */
  compact(): void;
  /** The stored object, or undefined. */
  get(plural: string, namespace: string, name: string, group?: string): KObject | undefined;
  close(): Promise<void>;
}

export async function startKubeDouble(opts: { types?: ResourceType[]; users?: Map<string, User> } = {}): Promise<KubeDouble> {
  const store = new Store(opts.types ?? defaultTypes());
  const requests: RequestRecord[] = [];
  const watches = new Set<OpenWatch>();
  const holds = new Set<WatchHold>();
  const users = opts.users;
  const server = createDoubleServer({ store, users, log: requests, watches, holds });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const type = (plural: string, group?: string): ResourceType => {
    const found = store.types.filter((t) => t.plural === plural && (group === undefined || t.group === group));
    if (found.length !== 1) throw new Error(`no single resource type ${plural}${group ? `.${group}` : ''}`);
    return found[0]!;
  };

  return {
    url,
    store,
    requests,
    type,
    addUser(token, user) {
      if (!users) throw new Error('start the double with users to enable authentication');
      users.set(token, user);
    },
    writeKubeconfig(dir, { token, namespace, name = 'double' }) {
      const config = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name, cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name, user: token ? { token } : {} }],
        contexts: [{ name, context: { cluster: name, user: name, ...(namespace ? { namespace } : {}) } }],
        'current-context': name,
      };
      const path = join(dir, `${name}.kubeconfig`);
      writeFileSync(path, YAML.stringify(config), { mode: 0o600 });
      return path;
    },
    openWatches: () => [...watches],
    killWatches(how = 'end', filter = () => true) {
      const chosen = [...watches].filter(filter);
      for (const w of chosen) {
        if (how === 'end') w.response.end();
        else w.response.destroy();
      }
      return chosen.length;
    },
    holdWatches(matches) {
      const hold: WatchHold = { matches, waiting: [] };
      holds.add(hold);
      return {
        waiting: () => hold.waiting.length,
        release() {
          holds.delete(hold);
          for (const go of hold.waiting.splice(0)) go();
        },
      };
    },
    compact: () => store.compact(),
    get: (plural, namespace, name, group) => store.find(type(plural, group), namespace, name),
    async close() {
      for (const h of holds) for (const go of h.waiting.splice(0)) go();
      holds.clear();
      for (const w of watches) w.response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
