// A chain item of a Run batch, as the tokenizer links it: the head the run links from may not be older than the
// newest this tokenizer knows committed (a cut), and it must be a link this tokenizer vouches for: the end of a run it
// linked, the head it knows, or one it recomputes from the proof the api sends (the event before and its own previous
// link): a link forged in the database is refused (the trail is broken), so nothing is ever linked onto it, and no
// checkpoint is signed over it. (A legacy head, of the public sha256 chain before keyed links, only on a trail this
// tokenizer knows no committed head of: see proof_legacy in the proto.) A committed head the api reports is remembered only when vouched for too. Queued
// events' MACs are checked, and the events left are linked under the tenant's chain key.
import type { ChainItem__Output } from '../proto/generated/strongroom/tokenizer/v1/ChainItem.js';
import type { ChainLinks__Output } from '../proto/generated/strongroom/tokenizer/v1/ChainLinks.js';
import { chainLinks, type AuditKeys } from './audit-keys.js';
import { AuditBrokenError, AuditCutError, type AuditHeads } from './audit-heads.js';
import { refusedQueued } from './audit-queue.js';
import { auditDigestFirstForm } from '../proto/audit-checkpoint.js';

/** Whether `previous` (the link at first_seq - 1) is vouched for, or proven by the item's proof (one HMAC). */
function provenPrevious(keys: AuditKeys, heads: AuditHeads, tenantId: number, salt: Buffer, item: ChainItem__Output): boolean {
  const from = Number(item.first_seq) - 1;
  if (heads.vouches(tenantId, salt, from, item.previous)) return true;
  if (from < 1 || !item.proof_canonical || item.previous.length !== 32) return false;
  if (item.proof_legacy) return heads.get(tenantId, salt).seq === 0 && auditDigestFirstForm(item.proof_previous, from, item.proof_canonical).equals(item.previous);
  return keys.isLink(tenantId, salt, { previous: item.proof_previous, seq: from, canonical: item.proof_canonical, link: item.previous });
}

export function linkChainItem(keys: AuditKeys, heads: AuditHeads, tenantId: number, salt: Buffer, item: ChainItem__Output): Omit<ChainLinks__Output, 'details_joined'> {
  const first = Number(item.first_seq);
  const committed = Number(item.committed_seq);
  heads.check(tenantId, salt, first - 1);
  let proven: boolean | undefined;
  const previousHolds = () => (proven ??= provenPrevious(keys, heads, tenantId, salt, item));
  if (committed > 0) {
    heads.check(tenantId, salt, committed);
    if (first - 1 < committed) throw new AuditCutError(`the audit trail was cut: its head is at ${first - 1}, but ${committed} was committed`);
    // Remembered only when vouched for: a head forged in the database and read back by the api is not.
    const isPrevious = committed === first - 1 && item.committed_link.equals(item.previous);
    if (heads.vouches(tenantId, salt, committed, item.committed_link) || (isPrevious && previousHolds())) heads.raise(tenantId, salt, committed, item.committed_link);
  }
  if (!item.canonical.length) return { links: [], refused: [] };
  if (!previousHolds()) throw new AuditBrokenError(`the audit trail is broken: the link at ${first - 1} is not one this tokenizer can recompute`);
  const now = Math.floor(Date.now() / 1000);
  const refused = item.queue_mac.length ? refusedQueued(keys.queueKey(tenantId, salt), tenantId, item.canonical, item.queue_mac, now) : new Set<number>();
  const kept = refused.size ? item.canonical.filter((_, i) => !refused.has(i)) : item.canonical;
  const links = kept.length ? chainLinks(keys.chainKey(tenantId, salt), item.previous, first, kept) : [];
  if (links.length) heads.linked(tenantId, salt, first + links.length - 1, links.at(-1)!);
  return { links, refused: [...refused] };
}
