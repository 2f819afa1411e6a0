// Merges small calls into one round trip per key. Calls made during one turn of the event loop travel
// together; and while `maxInFlight` round trips of a key are out, new calls wait and leave together as soon
// as one comes back, so under load the batches grow with the load instead of the round trips multiplying.
// A lone call, with nothing in flight, leaves in the same turn: it waits for nothing.

interface Waiter<R> {
  resolve(value: R): void;
  reject(err: unknown): void;
}

interface Group<I, R> {
  items: I[];
  waiters: Waiter<R>[];
}

/** `flush(key, items)` must resolve to one result per item, in order. */
export type FlushFn<I, R> = (key: string, items: I[]) => Promise<R[]>;

export class Coalescer<I, R> {
  private groups = new Map<string, Group<I, R>>();
  private readonly inFlight = new Map<string, number>();
  private scheduled = false;

  constructor(
    private readonly flush: FlushFn<I, R>,
    private readonly opts: { maxItems?: number; maxInFlight?: number } = {},
  ) {}

  private get maxItems(): number {
    return this.opts.maxItems ?? 256;
  }

  private get maxInFlight(): number {
    return this.opts.maxInFlight ?? Infinity;
  }

  add(key: string, item: I): Promise<R> {
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { items: [], waiters: [] }));
    const result = new Promise<R>((resolve, reject) => group.waiters.push({ resolve, reject }));
    group.items.push(item);
    if (group.items.length >= this.maxItems) {
      this.groups.delete(key);
      this.run(key, group);
    } else if (!this.scheduled && (this.inFlight.get(key) ?? 0) < this.maxInFlight) {
      this.scheduled = true;
      // The check phase follows the poll phase that delivered this turn's requests and replies.
      setImmediate(() => this.drain());
    }
    return result;
  }

  private drain(): void {
    this.scheduled = false;
    for (const [key, group] of this.groups) {
      // Held back while the key's round trips are all out; the next one to return sends it.
      if ((this.inFlight.get(key) ?? 0) >= this.maxInFlight) continue;
      this.groups.delete(key);
      this.run(key, group);
    }
  }

  /** Whether nothing of `key` is out or waiting to leave. */
  idle(key: string): boolean {
    return !this.inFlight.has(key) && !this.groups.has(key);
  }

  private settled(key: string): void {
    const left = (this.inFlight.get(key) ?? 1) - 1;
    if (left > 0) this.inFlight.set(key, left);
    else this.inFlight.delete(key);
    const waiting = this.groups.get(key);
    if (waiting) {
      this.groups.delete(key);
      this.run(key, waiting);
    }
  }

  private run(key: string, group: Group<I, R>): void {
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    let pending: Promise<R[]>;
    try {
      pending = this.flush(key, group.items);
    } catch (err) {
      pending = Promise.reject(err);
    }
    const answer = (results: R[]) => {
      if (results.length !== group.items.length) {
        const err = new Error(`coalesced call returned ${results.length} results for ${group.items.length} items`);
        for (const w of group.waiters) w.reject(err);
        return;
      }
      group.waiters.forEach((w, i) => w.resolve(results[i]!));
    };
    pending.finally(() => this.settled(key)).then(answer, (err: unknown) => {
      for (const w of group.waiters) w.reject(err);
    });
  }
}
