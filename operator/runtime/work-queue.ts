// A work queue of resource keys in the manner of client-go's: a key is queued at most once, is never handed to
// two workers at once (an add while it is processed queues it again after `done`), can wait for a time, and
// backs off exponentially per key after failures until `forget`.
import { systemClock, type Clock } from './clock.js';

export interface WorkQueueOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Which of two pending times for a key is earlier; the system clock unless given. */
  clock?: Clock;
  /** Called whenever the number of keys waiting changes (for a gauge). */
  onDepth?: (depth: number) => void;
}

export class WorkQueue {
  private readonly ready: string[] = [];
  /** Keys that need processing: queued, or added again while being processed. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private waiters: ((key: string | undefined) => void)[] = [];
  private closed = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly clock: Clock;

  constructor(private readonly opts: WorkQueueOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? 500;
    this.maxDelayMs = opts.maxDelayMs ?? 300_000;
    this.clock = opts.clock ?? systemClock;
  }

  add(key: string): void {
    if (this.closed || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Adds the key after `ms`; an earlier pending time for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.closed) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    timer.unref();
    this.delayed.set(key, { at, timer });
  }

  /** Adds the key after its backoff: base × 2^(failures so far), capped. */
  addRateLimited(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(n, 30));
    this.addAfter(key, delay);
    return delay;
  }

  /** The key succeeded: its next failure starts the backoff afresh. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process, waiting for one; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    const key = this.ready.shift();
    if (key !== undefined) return Promise.resolve(this.take(key));
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Processing of the key ended; if it was added meanwhile it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.closed) this.push(key);
  }

  get depth(): number {
    return this.ready.length;
  }

  /** No more keys are handed out; waiting workers get undefined. Keys being processed may still call done. */
  shutdown(): void {
    this.closed = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.ready.length = 0;
    this.dirty.clear();
    this.opts.onDepth?.(0);
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
  }

  private push(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(this.take(key));
    else {
      this.ready.push(key);
      this.opts.onDepth?.(this.ready.length);
    }
  }

  private take(key: string): string {
    this.dirty.delete(key);
    this.processing.add(key);
    this.opts.onDepth?.(this.ready.length);
    return key;
  }
}
