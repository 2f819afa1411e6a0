// Reading and writing one kind of our custom resources: a fresh get, the status subresource (written only when it
// changed), finalizers (guarded by resourceVersion, so a concurrent change means a retry, never a lost write)
// and the informer that watches the kind.
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { API_VERSION, GROUP, VERSION, asMergePatch, orUndefinedOn404, type Kube, type k8s } from '../kube.js';
import type { CommonStatus, Resource } from '../types/resources.js';
import { Informer } from './informer.js';

export const FINALIZER = 'strongroom.dev/cleanup';

export class CustomResources<S extends CommonStatus> {
  constructor(
    private readonly kube: Kube,
    readonly kind: string,
    readonly plural: string,
  ) {}

  private where(namespace: string) {
    return { group: GROUP, version: VERSION, namespace, plural: this.plural };
  }

  async get(namespace: string, name: string): Promise<Resource<S> | undefined> {
    return orUndefinedOn404(this.kube.custom.getNamespacedCustomObject({ ...this.where(namespace), name }) as Promise<Resource<S>>);
  }

  /** Replaces the whole status when it differs from what the object holds; returns whether it wrote. */
  async writeStatus(obj: Resource<S>, status: S): Promise<boolean> {
    if (isDeepStrictEqual(obj.status ?? {}, status)) return false;
    await this.kube.custom.patchNamespacedCustomObjectStatus({
      ...this.where(obj.metadata.namespace),
      name: obj.metadata.name,
      // "add" on an existing member replaces it (RFC 6902), and creates it when there is no status yet.
      body: [{ op: 'add', path: '/status', value: status }],
    });
    return true;
  }

  async addFinalizer(obj: Resource<S>): Promise<Resource<S>> {
    const finalizers = obj.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER)) return obj;
    return this.setFinalizers(obj, [...finalizers, FINALIZER]);
  }

  async removeFinalizer(obj: Resource<S>): Promise<void> {
    const finalizers = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return;
    await orUndefinedOn404(this.setFinalizers(obj, finalizers.filter((f) => f !== FINALIZER)));
  }

  private setFinalizers(obj: Resource<S>, finalizers: string[]): Promise<Resource<S>> {
    return this.kube.custom.patchNamespacedCustomObject(
      { ...this.where(obj.metadata.namespace), name: obj.metadata.name, body: { metadata: { finalizers, resourceVersion: obj.metadata.resourceVersion } } },
      asMergePatch,
    ) as Promise<Resource<S>>;
  }

  informer(namespace: string | undefined, log: Logger, onRestart: () => void): Informer<Resource<S> & k8s.KubernetesObject> {
    const base = `/apis/${GROUP}/${VERSION}`;
    const path = namespace ? `${base}/namespaces/${namespace}/${this.plural}` : `${base}/${this.plural}`;
    const list = () =>
      (namespace
        ? this.kube.custom.listNamespacedCustomObject({ ...this.where(namespace) })
        : this.kube.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: this.plural })) as Promise<k8s.KubernetesListObject<Resource<S>>>;
    return new Informer({ config: this.kube.config, path, list, resource: `${this.plural}.${GROUP}`, log, onRestart });
  }

  /** An owner reference that makes the owned object go with `obj` (Kubernetes garbage collection). */
  static ownerReference(obj: Resource): k8s.V1OwnerReference {
    return { apiVersion: API_VERSION, kind: obj.kind, name: obj.metadata.name, uid: obj.metadata.uid, controller: true, blockOwnerDeletion: true };
  }
}
