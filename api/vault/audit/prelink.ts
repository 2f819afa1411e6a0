// A read's link made in the tokenizer message that seals its details and opens its profile, from the head the
// tenant's trail is at in this process: the read's batch then appends it with no link call of its own, one tokenizer
// hop per read instead of two. Only for a read alone here (no batch of the tenant in flight, no tokenizer call of the
// tenant out or waiting, its head known; under load a read's link rides the batch's link call, and linking ahead would
// make batches of one) and one read at a time; the batch appends the event from that head only if the head is still there and the
// event is the text linked, and links it again (as any batch does) otherwise. A link made and never appended is
// never stored anywhere: nothing can be chained onto it.
import type { AuditHead } from '../../store/audit.js';
import type { TokenizerClient } from '../../tokenizer-client.js';
import type { SubjectKeys } from '../subject-keys.js';
import type { AuditLinker } from './chainer.js';
import { canonical, type AuditDraft, type AuditEventToChain } from './note.js';
import { sealAndLink, type SealOptions } from './seal.js';

/** An event whose details are being sealed ahead of its call's end (`AuditTrail.sealAhead`). */
export interface SealedAhead {
  draft: AuditDraft;
  sealed: Promise<AuditEventToChain>;
  /** A read's link, made in the same message when its tenant's trail was idle here. */
  prelink?: Promise<Prelink | undefined>;
}

export interface Prelink {
  /** The head it was linked from. */
  from: AuditHead;
  /** The canonical text the tokenizer linked (the event's head joined to the details it sealed). */
  text: string;
  link: Buffer;
}

/** How long a read holds its tenant's turn at most (a read that failed, or was never recorded, lets go by then). */
const HELD_MS = 1000;

/** Per tenant, the read that may link ahead: one at a time. */
export class Prelinks {
  private readonly held = new Map<number, number>();

  /** Takes the tenant's turn when its trail is `idle` here and no other read holds it. */
  take(tenantId: number, idle: boolean): boolean {
    const at = this.held.get(tenantId);
    if (!idle || (at !== undefined && performance.now() - at < HELD_MS)) return false;
    this.held.set(tenantId, performance.now());
    return true;
  }

  /** A batch of the tenant began: whatever was linked ahead is checked against the head when it is appended. */
  release(tenantId: number): void {
    this.held.delete(tenantId);
  }
}

/** Whether `prelink` is `event`'s link from `head`: the head has not moved, and the event is the text linked. */
export function holds(prelink: Prelink | undefined, head: AuditHead, event: AuditEventToChain): prelink is Prelink {
  return prelink !== undefined && prelink.from.seq === head.seq && prelink.from.hash.equals(head.hash) && canonical(event) === prelink.text;
}

/** One draft's event sealed ahead (`opts.drafts`: that one); with `from`, linked from that head in the same message. */
export function sealAheadOf(deps: { tokenizer: TokenizerClient; keys: SubjectKeys; linker: AuditLinker }, opts: SealOptions, from?: AuditHead): SealedAhead {
  const { tenantId } = opts.stores;
  const link = from && ((text: string, sealedAs: string) => deps.linker.runFrom(tenantId, from, [text], { detailsSealedAs: [sealedAs] }));
  const sealing = sealAndLink(deps.tokenizer, deps.keys, { ...opts, link });
  const sealed = sealing.then((s) => s.events[0]!);
  const prelink = sealing.then((s) => (from && s.linked ? { from, text: s.linked.text, link: s.linked.links[0]! } : undefined));
  // Awaited only if the call gets that far; a failed call leaves them unused, not unhandled.
  sealed.catch(() => undefined);
  prelink.catch(() => undefined);
  return { draft: opts.drafts[0]!, sealed, prelink };
}
