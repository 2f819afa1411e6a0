// The operator's access to the Kubernetes API through @kubernetes/client-node (object-parameter calls returning
// bodies): the configuration, the API clients, and how its errors are read.
import * as k8s from '@kubernetes/client-node';

export { k8s };

export const GROUP = 'strongroom.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export interface Kube {
  config: k8s.KubeConfig;
  custom: k8s.CustomObjectsApi;
  core: k8s.CoreV1Api;
  coordination: k8s.CoordinationV1Api;
  /** The namespace of the kubeconfig's current context, or "default". */
  contextNamespace: string;
}

/**
 * KUBECONFIG or ~/.kube/config outside a cluster (what `kubectl` uses); the pod's service account inside one.
 * `kubeconfig` names a file and wins over both.
 */
export function loadKube(kubeconfig?: string): Kube {
  const config = new k8s.KubeConfig();
  if (kubeconfig) config.loadFromFile(kubeconfig);
  else config.loadFromDefault();
  return fromConfig(config);
}

export function fromConfig(config: k8s.KubeConfig): Kube {
  return {
    config,
    custom: config.makeApiClient(k8s.CustomObjectsApi),
    core: config.makeApiClient(k8s.CoreV1Api),
    coordination: config.makeApiClient(k8s.CoordinationV1Api),
    contextNamespace: config.getContextObject(config.getCurrentContext())?.namespace ?? 'default',
  };
}

/** client-node sends a JSON Patch unless told otherwise. */
export const asMergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/** The HTTP status of a failed API call, or undefined when it is no ApiException. */
export function apiStatus(err: unknown): number | undefined {
  return err instanceof k8s.ApiException ? err.code : undefined;
}

/** The API server's own words (the Status message) for a failed call, never the request. */
export function apiMessage(err: unknown): string {
  if (err instanceof k8s.ApiException) {
    const body: unknown = typeof err.body === 'string' ? safeJson(err.body) : err.body;
    const message = (body as { message?: unknown } | undefined)?.message;
    return `${err.code} ${typeof message === 'string' ? message : 'error'}`;
  }
  return (err as Error).message;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function orUndefinedOn404<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (apiStatus(err) === 404) return undefined;
    throw err;
  }
}
