// Recently unwrapped data keys, by tenant, salt, subject and wrapped bytes: a hot person's key is not unwrapped on
// every call. It weakens nothing: whoever can send a wrapped key can have it unwrapped anyway, and an erased
// person's wrapped key is never sent again. The tokenizer's service owns one; every key it evicts, and every key
// it holds when it is closed, is zeroed.
import { LRUCache } from 'lru-cache';

export class DataKeyCache {
  private readonly keys: LRUCache<string, Buffer>;

  constructor(opts: { max?: number; ttlMs?: number } = {}) {
    this.keys = new LRUCache<string, Buffer>({ max: opts.max ?? 20_000, ttl: opts.ttlMs ?? 10 * 60_000, dispose: (key) => key.fill(0) });
  }

  get(id: string): Buffer | undefined {
    return this.keys.get(id);
  }

  set(id: string, key: Buffer): void {
    this.keys.set(id, key);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Forgets the keys of one tenant (its KEK was revoked or removed), zeroing each. */
  forgetTenant(tenantId: number): void {
    const prefix = `${tenantId}\0`;
    for (const id of [...this.keys.keys()]) if (id.startsWith(prefix)) this.keys.delete(id);
  }

  /** Forgets every key, zeroing each. */
  clear(): void {
    this.keys.clear();
  }
}
