// A controller: keys from informer events go into a work queue; workers take one key at a time, read the resource
// fresh, run its finalizer or its reconcile, write the Ready condition and status, and requeue: after the time
// the reconcile asked for, after the resync period (to correct drift), or with backoff after a failure.
import type { Logger } from 'pino';
import type { CommonStatus, Resource } from '../types/resources.js';
import type { Clock } from './clock.js';
import { findCondition, setCondition } from './conditions.js';
import type { CustomResources } from './custom-resources.js';
import type { EventRecorder } from './events.js';
import type { OperatorMetrics } from './metrics.js';
import { asReconcileError, type ReconcileError } from './reconcile-error.js';
import { WorkQueue } from './work-queue.js';

export interface ReconcileOutcome {
  /** The Ready condition's message. */
  message: string;
  /** Come back this soon (e.g. to rotate an xtoken); the resync period otherwise. */
  requeueAfterMs?: number;
}

export interface Reconciler<S extends CommonStatus> {
  kind: string;
  resources: CustomResources<S>;
  /** Brings the vault and the Secrets in line with the spec, filling in `status` as it learns. */
  reconcile(obj: Resource<S>, status: S): Promise<ReconcileOutcome>;
  /** What deletion does to the vault (per deletionPolicy), before the finalizer is removed. */
  finalize(obj: Resource<S>): Promise<void>;
}

export interface ControllerOptions {
  events: EventRecorder;
  metrics: OperatorMetrics;
  log: Logger;
  /** When conditions flip and when a requeue is due. */
  clock: Clock;
  workers: number;
  resyncMs: number;
  backoff?: { baseDelayMs?: number; maxDelayMs?: number };
}

export class Controller<S extends CommonStatus> {
  readonly queue: WorkQueue;
  private workers: Promise<void>[] = [];
  private readonly log: Logger;

  constructor(
    private readonly r: Reconciler<S>,
    private readonly opts: ControllerOptions,
  ) {
    this.log = opts.log.child({ kind: r.kind });
    this.queue = new WorkQueue({ ...opts.backoff, clock: opts.clock, onDepth: (d) => opts.metrics.queueDepth.set({ kind: r.kind }, d) });
  }

  enqueue(obj: { metadata?: { namespace?: string; name?: string } }): void {
    if (obj.metadata?.namespace && obj.metadata.name) this.queue.add(`${obj.metadata.namespace}/${obj.metadata.name}`);
  }

  start(): void {
    for (let i = 0; i < this.opts.workers; i++) this.workers.push(this.work());
  }

  /** Hands out no more keys and waits for the reconciles in flight to finish. */
  async stop(): Promise<void> {
    this.queue.shutdown();
    await Promise.all(this.workers);
    this.workers = [];
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.process(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const { kind } = this.r;
    const [namespace, name] = key.split('/') as [string, string];
    const stopTimer = this.opts.metrics.reconcileDuration.startTimer({ kind });
    try {
      const next = await this.reconcileKey(namespace, name);
      this.opts.metrics.reconciles.inc({ kind, result: 'success' });
      this.queue.forget(key);
      if (next !== 'gone') this.queue.addAfter(key, Math.min(next ?? this.opts.resyncMs, this.opts.resyncMs));
    } catch (err) {
      const e = asReconcileError(err);
      this.opts.metrics.reconciles.inc({ kind, result: 'error' });
      this.opts.metrics.reconcileErrors.inc({ kind, reason: e.reason });
      let delay: number;
      if (e.retry.permanent) {
        this.queue.forget(key);
        delay = this.opts.resyncMs;
        this.queue.addAfter(key, delay);
      } else if (e.retry.retryAfterMs !== undefined) {
        delay = e.retry.retryAfterMs;
        this.queue.addAfter(key, delay);
      } else {
        delay = this.queue.addRateLimited(key);
      }
      this.log.warn({ namespace, name, reason: e.reason, err: e.message, retryInMs: delay }, 'reconcile failed');
    } finally {
      stopTimer();
    }
  }

  /** The requeue delay the reconcile asked for, or 'gone' when the resource no longer exists. */
  private async reconcileKey(namespace: string, name: string): Promise<number | undefined | 'gone'> {
    const resources = this.r.resources;
    // Level-based: what the resource says now, never what an event said.
    let obj = await resources.get(namespace, name);
    if (!obj) return 'gone';
    if (obj.metadata.deletionTimestamp) {
      if (!(obj.metadata.finalizers ?? []).length) return 'gone';
      try {
        await this.r.finalize(obj);
      } catch (err) {
        await this.failed(obj, { ...(obj.status ?? ({} as S)) }, asReconcileError(err));
        throw err;
      }
      await resources.removeFinalizer(obj);
      this.log.info({ namespace, name }, 'finalized');
      return 'gone';
    }
    obj = await resources.addFinalizer(obj);
    const status = structuredClone(obj.status ?? ({} as S));
    const generation = obj.metadata.generation;
    let outcome: ReconcileOutcome;
    try {
      outcome = await this.r.reconcile(obj, status);
    } catch (err) {
      await this.failed(obj, status, asReconcileError(err));
      throw err;
    }
    status.observedGeneration = generation;
    const wasReady = findCondition(obj.status?.conditions, 'Ready')?.status === 'True';
    status.conditions = setCondition(status.conditions, { type: 'Ready', status: 'True', observedGeneration: generation, reason: 'Reconciled', message: outcome.message }, new Date(this.opts.clock.now()));
    await resources.writeStatus(obj, status);
    if (!wasReady) void this.opts.events.emit(obj, 'Normal', 'Reconciled', outcome.message);
    return outcome.requeueAfterMs;
  }

  /**
   * Ready=False with the reason, whatever the reconcile learned before it failed, and a Warning event. The
   * status's observedGeneration stays: this generation has not been applied yet (the condition says which one
   * failed), and reconcilers use it to tell what still needs writing.
   */
  private async failed(obj: Resource<S>, status: S, e: ReconcileError): Promise<void> {
    const generation = obj.metadata.generation;
    status.conditions = setCondition(status.conditions, { type: 'Ready', status: 'False', observedGeneration: generation, reason: e.reason, message: e.message }, new Date(this.opts.clock.now()));
    try {
      await this.r.resources.writeStatus(obj, status);
    } catch (err) {
      this.log.warn({ name: obj.metadata.name, err: (err as Error).message }, 'could not write the status');
    }
    await this.opts.events.emit(obj, 'Warning', e.reason, e.message);
  }
}
