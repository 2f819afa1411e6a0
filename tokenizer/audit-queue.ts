// Queued audit events' MACs. A write queues its event in its own transaction (audit_queue), and a chainer links it
// later: whoever can write the database could queue events of their own making, and the chainer would link them.
// So each queued event carries a MAC made by the tokenizer as the api seals it, under the tenant's `audit-queue` key,
// over its uuid, time, tenant and the sha256 of its canonical text; the link call checks it before linking, and
// refuses (leaves out) an event whose MAC does not hold. Its time is bound when the MAC is made: it may be off the
// tokenizer's clock by QUEUE_SKEW_SECONDS at most (the event is drafted as its call starts and sealed as its write
// ends: a write may run as long as a request may, 120 s by default, with room to spare; ahead of the clock, only
// QUEUE_AHEAD_SECONDS), so a back-dated event never gets a MAC.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { QueueMacItem__Output } from '../proto/generated/strongroom/tokenizer/v1/QueueMacItem.js';
import { canonicalText } from '../proto/audit-checkpoint.js';
import { BadItemError } from './batch.js';

/** How far behind the tokenizer's clock a queued event's time may be when its MAC is made. */
export const QUEUE_SKEW_SECONDS = 300;
/** How far ahead of the tokenizer's clock it may be, when its MAC is made and when it is linked. */
export const QUEUE_AHEAD_SECONDS = 120;
const DOMAIN = 'strongroom/audit-queue/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A queued event the tokenizer will not vouch for (its time too far from now): FAILED_PRECONDITION. */
export class QueueRefusedError extends Error {
  override name = 'QueueRefusedError';
}

/** The uuid and time a canonical text names, or undefined when it is not an event's canonical text. */
export function eventOf(canonical: string): { uuid: string; when: number } | undefined {
  let fields: unknown;
  try {
    fields = JSON.parse(canonical);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 10) return undefined;
  const [uuid, when] = fields as unknown[];
  if (typeof uuid !== 'string' || !UUID.test(uuid) || !Number.isSafeInteger(when)) return undefined;
  return { uuid, when: when as number };
}

/** The MAC of an event's canonical text in a tenant. */
export function queueMac(key: Buffer, tenantId: number, canonical: string): Buffer {
  const e = eventOf(canonical);
  if (!e) throw new BadItemError('not an audit event\'s canonical text');
  const digest = createHash('sha256').update(canonical, 'utf8').digest();
  return createHmac('sha256', key).update(`${DOMAIN}\n${tenantId}\n${e.uuid}\n${e.when}\n`).update(digest).digest();
}

/**
 * MACs for a batch's queue_mac items; `sealed` gives each event's details sealed in the same batch, by uuid. The
 * item's uuid must be the one its text names, and its time within the skew of `now` (seconds).
 */
export function macQueued(key: Buffer, tenantId: number, items: readonly QueueMacItem__Output[], sealed: ReadonlyMap<string, Buffer>, now: number): Buffer[] {
  return items.map((item, i) => {
    const details = sealed.get(item.uuid) ?? (item.details.length ? item.details : null);
    const canonical = canonicalText(item.head, details);
    const e = eventOf(canonical);
    if (!e || e.uuid !== item.uuid) throw new BadItemError(`queue_mac[${i}]: head is not the event's fields, or names another uuid`);
    if (e.when < now - QUEUE_SKEW_SECONDS || e.when > now + QUEUE_AHEAD_SECONDS) {
      throw new QueueRefusedError(`queue_mac[${i}]: the event's time is ${e.when - now} s from the tokenizer's clock (-${QUEUE_SKEW_SECONDS} to +${QUEUE_AHEAD_SECONDS} s)`);
    }
    return queueMac(key, tenantId, canonical);
  });
}

/** Which of the first macs.length texts are refused: the MAC does not hold, or the event is stamped in the future. */
export function refusedQueued(key: Buffer, tenantId: number, canonical: readonly string[], macs: readonly Buffer[], now: number): Set<number> {
  const refused = new Set<number>();
  macs.forEach((mac, i) => {
    const text = canonical[i]!;
    const e = eventOf(text);
    const good = e !== undefined && mac.length === 32 && e.when <= now + QUEUE_AHEAD_SECONDS && timingSafeEqual(queueMac(key, tenantId, text), mac);
    if (!good) refused.add(i);
  });
  return refused;
}
