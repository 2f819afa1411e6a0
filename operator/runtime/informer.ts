// An informer: client-node's ListWatch (list, then watch from the list's resourceVersion; after a closed stream it
// watches again from the last resourceVersion seen; after 410 Gone it lists again) kept alive. ListWatch stops on
// any other error; this wrapper starts it again with backoff, resuming from where it was, and counts restarts.
import type { Logger } from 'pino';
import { k8s, apiMessage } from '../kube.js';

export interface InformerOptions<T extends k8s.KubernetesObject> {
  config: k8s.KubeConfig;
  /** The collection's path, e.g. /apis/strongroom.dev/v1alpha1/namespaces/ns/tenants. */
  path: string;
  list: () => Promise<k8s.KubernetesListObject<T>>;
  resource: string;
  log: Logger;
  onRestart?: () => void;
  maxRestartDelayMs?: number;
}

export class Informer<T extends k8s.KubernetesObject> {
  private readonly watch: k8s.ListWatch<T>;
  private running = false;
  private synced = false;
  private restarts = 0;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: InformerOptions<T>) {
    this.watch = new k8s.ListWatch<T>(opts.path, new k8s.Watch(opts.config), opts.list, false);
    this.watch.on('error', (err) => this.failed(err));
    // Any event means the stream works again: the next failure backs off from the start.
    this.watch.on('add', () => (this.restarts = 0));
    this.watch.on('update', () => (this.restarts = 0));
  }

  on(event: 'add' | 'update' | 'delete', handler: (obj: T) => void): void {
    this.watch.on(event, handler);
  }

  /** Lists and starts watching; resolves once the first list is in the cache (or failed, then it retries). */
  async start(): Promise<void> {
    this.running = true;
    await this.watch.start();
    if (this.running && !this.restartTimer) this.synced = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.synced = false;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    await this.watch.stop();
  }

  /** True once the cache holds a complete list. */
  hasSynced(): boolean {
    return this.synced;
  }

  list(namespace?: string): readonly T[] {
    return this.watch.list(namespace);
  }

  get(name: string, namespace?: string): T | undefined {
    return this.watch.get(name, namespace);
  }

  private failed(err: unknown): void {
    // Stopping aborts the stream, which ListWatch reports as an error too.
    if (!this.running || this.restartTimer) return;
    const delay = Math.min(this.opts.maxRestartDelayMs ?? 30_000, 250 * 2 ** Math.min(this.restarts, 10));
    this.restarts++;
    this.opts.log.warn({ resource: this.opts.resource, err: apiMessage(err), delayMs: delay }, 'informer stopped on an error; restarting');
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.running) return;
      this.opts.onRestart?.();
      this.watch.start().then(
        () => {
          if (this.running && !this.restartTimer) this.synced = true;
        },
        (e: unknown) => this.failed(e),
      );
    }, delay);
    this.restartTimer.unref();
  }
}
