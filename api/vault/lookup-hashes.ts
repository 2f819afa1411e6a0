// The lookup hashes of identities (HMACs under the tenant's index key, made by the tokenizer), batched in one call
// and cached: a hot identity is not hashed again on every call. The cache is keyed by a per-process HMAC of the
// identity, so it holds no identity in clear.
import { createHmac, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { TokenizerClient } from '../tokenizer-client.js';
import { INDEX_KIND, type IndexMode } from './identities.js';

export class LookupHashes {
  private readonly cache = new LRUCache<string, Buffer>({ max: 200_000 });
  private readonly cacheKey = randomBytes(32);

  constructor(private readonly tokenizer: TokenizerClient) {}

  /** The hashes of `items`, in order; null for an identity that hashes to nothing (an empty value). */
  async of(tenantId: number, items: { mode: IndexMode; identity: string }[]): Promise<(Buffer | null)[]> {
    const keys = items.map((it) => this.keyOf(tenantId, it.mode, it.identity));
    const missing = items.map((it, i) => ({ ...it, i })).filter((it) => !this.cache.has(keys[it.i]!));
    if (missing.length) {
      const { hash } = await this.tokenizer.run(tenantId, {
        hash: missing.map((m) => ({ kind: INDEX_KIND[m.mode], value: m.identity })),
      });
      missing.forEach((m, j) => this.cache.set(keys[m.i]!, hash[j]!));
    }
    return keys.map((k) => {
      const h = this.cache.get(k);
      return h && h.length ? h : null;
    });
  }

  /** A hash known for the cache key `key` (from keyOf). */
  get(key: string): Buffer | undefined {
    return this.cache.get(key);
  }

  /** A value's hash never changes: once known (sealed, or read from its row), the next lookup needs no call. */
  set(key: string, hash: Buffer): void {
    this.cache.set(key, hash);
  }

  /** The cache key of an identity: computed once per value by a caller that both looks and stores. */
  keyOf(tenantId: number, mode: IndexMode, identity: string): string {
    return createHmac('sha256', this.cacheKey).update(`${tenantId}\0${mode}\0${identity}`).digest('base64');
  }
}
