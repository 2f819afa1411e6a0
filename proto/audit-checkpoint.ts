// A signed audit checkpoint as both sides read it: the bytes the tokenizer signs, the JSON line the api writes,
// and the check an auditor runs with nothing but the public key (no key material, no database).
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** One checkpoint as written to the log and to the checkpoint directory, one JSON object per line. */
export interface CheckpointLine {
  type: 'strongroom.audit.checkpoint';
  v: 1;
  tenant: number;
  seq: number;
  /** The stored link of event `seq`, hex. */
  link: string;
  /** Seconds since the epoch, by the tokenizer's clock. */
  time: number;
  /** Ed25519 over checkpointMessage(), base64. */
  signature: string;
}

// Changing this layout voids every checkpoint ever signed: auditors keep the old ones.
const DOMAIN = 'strongroom/audit-checkpoint/v1';

/** What the tokenizer signs: a fixed domain, then the four fields as one JSON array. */
export function checkpointMessage(tenant: number, seq: number, link: Buffer, time: number): Buffer {
  return Buffer.from(`${DOMAIN}\n${JSON.stringify([tenant, seq, link.toString('hex'), time])}`, 'utf8');
}

export function checkpointLine(tenant: number, seq: number, link: Buffer, time: number, signature: Buffer): CheckpointLine {
  return { type: 'strongroom.audit.checkpoint', v: 1, tenant, seq, link: link.toString('hex'), time, signature: signature.toString('base64') };
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
  if (typeof c.link !== 'string' || !/^[0-9a-f]{64}$/.test(c.link) || typeof c.signature !== 'string') return null;
  return c as CheckpointLine;
}

/** True when the line's signature holds under `key`. */
export function checkpointSigned(key: KeyObject, c: CheckpointLine): boolean {
  const message = checkpointMessage(c.tenant, c.seq, Buffer.from(c.link, 'hex'), c.time);
  return verify(null, message, key, Buffer.from(c.signature, 'base64'));
}
