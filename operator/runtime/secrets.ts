// Secrets owned by one of our resources: read, written only when their content differs, deleted. A Secret of the
// same name that some other owner controls is never touched: that is a conflict the user must settle.
import { isDeepStrictEqual } from 'node:util';
import { apiStatus, orUndefinedOn404, type Kube } from '../kube.js';
import type { Resource } from '../types/resources.js';
import { CustomResources } from './custom-resources.js';
import { ReconcileError } from './reconcile-error.js';

const LABELS = { 'app.kubernetes.io/managed-by': 'strongroom-operator' };

export class OwnedSecrets {
  constructor(private readonly kube: Kube) {}

  /** The decoded data of the Secret, undefined when there is none; a conflict when another owner controls it. */
  async read(owner: Resource, name: string): Promise<Record<string, string> | undefined> {
    const secret = await orUndefinedOn404(this.kube.core.readNamespacedSecret({ namespace: owner.metadata.namespace, name }));
    if (!secret) return undefined;
    this.checkOwner(owner, name, secret.metadata?.ownerReferences);
    return decode(secret.data);
  }

  /**
   * The decoded data of the Secret when this owner controls it, else undefined: for names that come from a status
   * (anyone who may patch it may write it), which are never a conflict to report, only nothing to read.
   */
  async readIfOwned(owner: Resource, name: string): Promise<Record<string, string> | undefined> {
    const secret = await orUndefinedOn404(this.kube.core.readNamespacedSecret({ namespace: owner.metadata.namespace, name }));
    if (!secret || !this.controls(owner, secret.metadata?.ownerReferences)) return undefined;
    return decode(secret.data);
  }

  /** Creates or replaces the Secret so it holds exactly `data`; returns whether it wrote. */
  async write(owner: Resource, name: string, data: Record<string, string>): Promise<boolean> {
    const namespace = owner.metadata.namespace;
    const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
    const existing = await orUndefinedOn404(this.kube.core.readNamespacedSecret({ namespace, name }));
    const metadata = {
      name,
      namespace,
      labels: { ...LABELS, [`strongroom.dev/${owner.kind.toLowerCase()}`]: owner.metadata.name },
      ownerReferences: [CustomResources.ownerReference(owner)],
    };
    if (!existing) {
      await this.kube.core.createNamespacedSecret({ namespace, body: { metadata, type: 'Opaque', data: encoded } });
      return true;
    }
    this.checkOwner(owner, name, existing.metadata?.ownerReferences);
    if (isDeepStrictEqual(existing.data ?? {}, encoded) && isDeepStrictEqual(existing.metadata?.labels ?? {}, metadata.labels)) return false;
    // The resourceVersion we read guards the write: a concurrent change makes it fail and the reconcile retry.
    await this.kube.core.replaceNamespacedSecret({
      namespace,
      name,
      body: { metadata: { ...metadata, resourceVersion: existing.metadata?.resourceVersion }, type: existing.type ?? 'Opaque', data: encoded },
    });
    return true;
  }

  /** Deletes the Secret if this owner controls it; a Secret that is gone or someone else's is left alone. */
  async remove(owner: Resource, name: string): Promise<void> {
    const namespace = owner.metadata.namespace;
    const existing = await orUndefinedOn404(this.kube.core.readNamespacedSecret({ namespace, name }));
    if (!existing || !this.controls(owner, existing.metadata?.ownerReferences)) return;
    try {
      await this.kube.core.deleteNamespacedSecret({ namespace, name, body: { preconditions: { uid: existing.metadata!.uid! } } });
    } catch (err) {
      if (apiStatus(err) !== 404) throw err;
    }
  }

  private controls(owner: Resource, refs: { uid: string; controller?: boolean }[] | undefined): boolean {
    return (refs ?? []).some((r) => r.uid === owner.metadata.uid && r.controller);
  }

  private checkOwner(owner: Resource, name: string, refs: { uid: string; controller?: boolean }[] | undefined): void {
    if (!this.controls(owner, refs)) {
      throw new ReconcileError('SecretConflict', `Secret ${name} exists and is not owned by this ${owner.kind}; delete it or choose another name`, { retryAfterMs: 60_000 });
    }
  }
}

const decode = (data: Record<string, string> | undefined) => Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
