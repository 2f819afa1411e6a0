// A chain item of a Run batch, as the tokenizer links it: the committed head the api reports is remembered (and may
// not go back), the head the run links from may not be older than it, queued events' MACs are checked, and the
// events left are linked under the tenant's chain key. Refused queued events are named, never linked.
import type { ChainItem__Output } from '../proto/generated/strongroom/tokenizer/v1/ChainItem.js';
import type { ChainLinks__Output } from '../proto/generated/strongroom/tokenizer/v1/ChainLinks.js';
import { chainLinks, type AuditKeys } from './audit-keys.js';
import type { AuditHeads } from './audit-heads.js';
import { refusedQueued } from './audit-queue.js';

export function linkChainItem(keys: AuditKeys, heads: AuditHeads, tenantId: number, salt: Buffer, item: ChainItem__Output): ChainLinks__Output {
  const first = Number(item.first_seq);
  const committed = Number(item.committed_seq);
  if (committed > 0) heads.raise(tenantId, salt, committed, item.committed_link);
  heads.check(tenantId, salt, first - 1);
  if (!item.canonical.length) return { links: [], refused: [] };
  const now = Math.floor(Date.now() / 1000);
  const refused = item.queue_mac.length ? refusedQueued(keys.queueKey(tenantId, salt), tenantId, item.canonical, item.queue_mac, now) : new Set<number>();
  const kept = refused.size ? item.canonical.filter((_, i) => !refused.has(i)) : item.canonical;
  const links = kept.length ? chainLinks(keys.chainKey(tenantId, salt), item.previous, first, kept) : [];
  return { links, refused: [...refused] };
}
