// A signed audit checkpoint as both sides read it: the bytes the tokenizer signs, the JSON line the api writes,
// and the check an auditor runs with nothing but the public key (no key material, no database). Also the public
// digest chain a checkpoint signs besides the keyed link, which anyone can recompute from the stored events.
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

/** One checkpoint as written to the log and to the checkpoint directory, one JSON object per line. */
export interface CheckpointLine {
  type: 'strongroom.audit.checkpoint';
  v: 1;
  tenant: number;
  seq: number;
  /** The stored link of event `seq`, hex. */
  link: string;
  /** The stored digest of event `seq` (see auditDigest), hex. */
  digest: string;
  /** Seconds since the epoch, by the tokenizer's clock. */
  time: number;
  /** Ed25519 over checkpointMessage(), base64. */
  signature: string;
}

// Changing this layout voids every checkpoint ever signed: auditors keep the old ones.
const DOMAIN = 'strongroom/audit-checkpoint/v1';

/**
 * The public digest chain: digest_n = sha256(digest_{n-1} ‖ int8(seq_n) ‖ leaf_n), where leaf_n is the hash of the
 * event's canonical text with its sealed details replaced by their SHA-256 (auditLeaf). Unkeyed, so anyone with the
 * events can recompute it (and anyone who writes the database can forge it: it proves nothing alone); signed in a
 * checkpoint, it lets an auditor without the audit key check every event up to that checkpoint. Through the leaves,
 * one person's events are shown to follow into a checkpoint with only the hashes of the others between them
 * (proofs), never their content: each canonical text holds a random UUID. Through the details' hash, a copy of the
 * trail is verifiable without the sealed details themselves (the audit sinks send the hash, not the bytes).
 */
export function auditDigest(previous: Buffer, seq: number, canonical: string): Buffer {
  return digestOfLeaf(previous, seq, auditLeaf(canonical));
}

/** An event's leaf, from its canonical text (canonicalText below): all a proof shows of someone else's event. */
export function auditLeaf(canonical: string): Buffer {
  // The details are the last element, `null` or a base64 string: base64 holds no comma.
  const comma = canonical.lastIndexOf(',');
  const details = canonical.slice(comma + 1, -1);
  return leafOfDigest(`${canonical.slice(0, comma)}]`, details === 'null' ? null : detailsDigest(Buffer.from(details.slice(1, -1), 'base64')));
}

/** The SHA-256 of an event's sealed details, hex; null when it has none. */
export function detailsDigest(details: Buffer | null): string | null {
  return details ? createHash('sha256').update(details).digest('hex') : null;
}

/** The leaf of an event from `head`, the JSON array of its nine fields before the details, and its details' digest. */
export function leafOfDigest(head: string, digestHex: string | null): Buffer {
  return createHash('sha256').update(`${head.slice(0, -1)},${JSON.stringify(digestHex)}]`, 'utf8').digest();
}

export function digestOfLeaf(previous: Buffer, seq: number, leaf: Buffer): Buffer {
  return createHash('sha256').update(previous).update(seqBytes(seq)).update(leaf).digest();
}

/**
 * The chain's first form, over the canonical text itself: events chained before leaves (and the legacy unkeyed
 * links, which had this form) keep it. Its input is longer than the leaf form's 72 bytes (a canonical text holds a
 * 36-character UUID), so no text can stand for a leaf: accepting either form needs a SHA-256 collision to forge.
 * (The first form covers the sealed details themselves: a copy of such an event is verifiable only with them.)
 */
export function auditDigestFirstForm(previous: Buffer, seq: number, canonical: string): Buffer {
  return createHash('sha256').update(previous).update(seqBytes(seq)).update(canonical, 'utf8').digest();
}

/**
 * The digest following `previous` for this event, in the form `stated` has: the leaf form unless the stated digest
 * is the first form's (an event chained before leaves). A verifier compares the answer with `stated`.
 */
export function followingDigest(previous: Buffer, seq: number, canonical: string, stated: Buffer | null | undefined): Buffer {
  const digest = auditDigest(previous, seq, canonical);
  if (!stated || digest.equals(stated)) return digest;
  const first = auditDigestFirstForm(previous, seq, canonical);
  return first.equals(stated) ? first : digest;
}

function seqBytes(seq: number): Buffer {
  const n = Buffer.alloc(8);
  n.writeBigInt64BE(BigInt(seq));
  return n;
}

export interface CheckpointFields {
  tenant: number;
  seq: number;
  link: Buffer;
  digest: Buffer;
  time: number;
}

/** What the tokenizer signs: a fixed domain, then the fields as one JSON array. */
export function checkpointMessage(c: CheckpointFields): Buffer {
  return Buffer.from(`${DOMAIN}\n${JSON.stringify([c.tenant, c.seq, c.link.toString('hex'), c.digest.toString('hex'), c.time])}`, 'utf8');
}

export function checkpointLine(c: CheckpointFields, signature: Buffer): CheckpointLine {
  return {
    type: 'strongroom.audit.checkpoint',
    v: 1,
    tenant: c.tenant,
    seq: c.seq,
    link: c.link.toString('hex'),
    digest: c.digest.toString('hex'),
    time: c.time,
    signature: signature.toString('base64'),
  };
}

/** A PEM public key (SPKI), as KeyringInfo and the tokenizer's start log give it. */
export function checkpointKey(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the checkpoint key must be an Ed25519 public key');
  return key;
}

/**
 * A line of a checkpoint file, or an api log line carrying one (under `checkpoint`), parsed; null when the line
 * holds no checkpoint at all.
 */
export function parseCheckpoint(text: string): CheckpointLine | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const outer = v as { checkpoint?: unknown } | null;
  const c = (outer && typeof outer === 'object' && outer.checkpoint && typeof outer.checkpoint === 'object' ? outer.checkpoint : v) as Partial<CheckpointLine> | null;
  if (!c || c.type !== 'strongroom.audit.checkpoint' || c.v !== 1) return null;
  if (!Number.isInteger(c.tenant) || !Number.isInteger(c.seq) || !Number.isInteger(c.time)) return null;
  const hex = (v: unknown) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
  if (!hex(c.link) || !hex(c.digest) || typeof c.signature !== 'string') return null;
  return c as CheckpointLine;
}

/** True when the line's signature holds under `key`. */
export function checkpointSigned(key: KeyObject, c: CheckpointLine): boolean {
  const message = checkpointMessage({ tenant: c.tenant, seq: c.seq, link: Buffer.from(c.link, 'hex'), digest: Buffer.from(c.digest, 'hex'), time: c.time });
  return verify(null, message, key, Buffer.from(c.signature, 'base64'));
}

/**
 * An audit event's canonical text (what its link and digest cover) from `head`, the JSON array of its nine fields
 * before the details, and its sealed details: the same text as JSON.stringify of all ten (api/vault/audit/note.ts).
 */
export function canonicalText(head: string, details: Buffer | null): string {
  return `${head.slice(0, -1)},${JSON.stringify(details?.toString('base64') ?? null)}]`;
}
