// Merges small calls made during one turn of the event loop into one round trip per key.
// Under load, sixteen concurrent UserGets become one tokenizer call and one SELECT instead of sixteen of each;
// a lone request is flushed in the same turn, so it waits for nothing.

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
  private scheduled = false;

  constructor(
    private readonly flush: FlushFn<I, R>,
    private readonly maxItems = 256,
  ) {}

  add(key: string, item: I): Promise<R> {
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { items: [], waiters: [] }));
    const result = new Promise<R>((resolve, reject) => group.waiters.push({ resolve, reject }));
    group.items.push(item);
    if (group.items.length >= this.maxItems) {
      this.groups.delete(key);
      this.run(key, group);
    } else if (!this.scheduled) {
      this.scheduled = true;
      // The check phase follows the poll phase that delivered this turn's requests and replies.
      setImmediate(() => this.drain());
    }
    return result;
  }

  private drain(): void {
    this.scheduled = false;
    const groups = this.groups;
    this.groups = new Map();
    for (const [key, group] of groups) this.run(key, group);
  }

  private run(key: string, group: Group<I, R>): void {
    let pending: Promise<R[]>;
    try {
      pending = this.flush(key, group.items);
    } catch (err) {
      pending = Promise.reject(err);
    }
    pending.then(
      (results) => {
        if (results.length !== group.items.length) {
          const err = new Error(`coalesced call returned ${results.length} results for ${group.items.length} items`);
          for (const w of group.waiters) w.reject(err);
          return;
        }
        group.waiters.forEach((w, i) => w.resolve(results[i]!));
      },
      (err: unknown) => {
        for (const w of group.waiters) w.reject(err);
      },
    );
  }
}
