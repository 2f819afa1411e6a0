// The legacy audit chain (plain sha256 links, before the keyed chain): verified once, before the upgrade changes it.
import { createHash } from 'node:crypto';
import type { Stores } from '../../store/stores.js';
import { canonical } from '../audit/trail.js';

/** The legacy chain as found before anything changed: kept in the settings table under `legacy.audit.<tenant>`. */
export interface LegacyChainVerdict {
  result: 'intact' | 'broken';
  /** Legacy events (1..events) and the link of the last, hex. */
  events: number;
  /** Legacy persons when the upgrade began (the progress counts against it). */
  persons: number;
  head: string;
  broken?: { seq: number; why: 'link' | 'gap' | 'head' };
}

/** The legacy link (Tenant0002AuditAppend): sha256(previous link ‖ int8 seq ‖ utf8 canonical text). */
export function legacyChainHash(prev: Buffer, seq: number, canon: string): Buffer {
  const seqBytes = Buffer.alloc(8);
  seqBytes.writeBigInt64BE(BigInt(seq));
  return createHash('sha256').update(prev).update(seqBytes).update(canon, 'utf8').digest();
}

/** Recomputes hash_n = sha256(hash_{n-1} ‖ int8 seq ‖ canonical) over the events with unkeyed links, 1..N. */
export async function verifyLegacyChain(stores: Stores): Promise<LegacyChainVerdict> {
  const { n, last } = await stores.legacy.legacyEvents();
  const persons = await stores.legacy.peopleLeftCount();
  let prev: Buffer = Buffer.alloc(0);
  let seq = 0;
  const verdict = (broken?: LegacyChainVerdict['broken']): LegacyChainVerdict => ({
    result: broken ? 'broken' : 'intact',
    events: last ?? 0,
    persons,
    head: prev.toString('hex'),
    ...(broken ? { broken } : {}),
  });
  while (seq < (last ?? 0)) {
    const rows = await stores.audit.after(seq, 1000);
    for (const r of rows) {
      if (r.seq > (last ?? 0)) break;
      if (r.seq !== seq + 1) return verdict({ seq: seq + 1, why: 'gap' });
      if (r.digest) return verdict({ seq: r.seq, why: 'link' });
      const expect = legacyChainHash(prev, r.seq, canonical(r));
      if (!expect.equals(r.hash)) return verdict({ seq: r.seq, why: 'link' });
      prev = r.hash;
      seq = r.seq;
    }
    if (!rows.length) break;
  }
  if (seq !== n) return verdict({ seq: seq + 1, why: 'gap' });
  // A trail nothing was appended to since: its head must be the last legacy link.
  const head = await stores.audit.head();
  if (head.seq === seq && !head.hash.equals(prev)) return verdict({ seq: Math.max(seq, 1), why: 'head' });
  return verdict();
}
