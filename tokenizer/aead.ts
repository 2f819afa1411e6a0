// Record encryption: AES-256-GCM with a random 96-bit nonce, bound by AAD to (tenant, table, row).
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { fillRandom } from './random.js';
import type { Subkeys } from './subkeys.js';

/** Sealed layout: [0x01][master key version, u32 BE][nonce, 12][ciphertext][GCM tag, 16]. */
export const FORMAT = 0x01;
const VERSION_AT = 1;
const NONCE_AT = 5;
const NONCE = 12;
const HEADER = 1 + 4 + NONCE;
const TAG = 16;
export const SEAL_OVERHEAD = HEADER + TAG;

/** Why a record did not open; messages name no key material and no content. */
export type SealFailure = 'malformed' | 'unknown-version' | 'does-not-open';

export class SealError extends Error {
  override name = 'SealError';
  constructor(
    readonly reason: SealFailure,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Tenant as a fixed-width u32, then table and row id each behind a u32 byte length: no two different
 * triples encode alike, so ("a", "bc") never authenticates as ("ab", "c").
 */
export function aadFor(tenantId: number, table: string, rowId: string): Buffer {
  const tLen = Buffer.byteLength(table);
  const rLen = Buffer.byteLength(rowId);
  const out = Buffer.allocUnsafe(12 + tLen + rLen);
  out.writeUInt32BE(tenantId, 0);
  out.writeUInt32BE(tLen, 4);
  out.write(table, 8, 'utf8');
  out.writeUInt32BE(rLen, 8 + tLen);
  out.write(rowId, 12 + tLen, 'utf8');
  return out;
}

/** Which subkey seals: records, or the data keys wrapped for per-person envelopes. */
export type SealPurpose = 'record' | 'wrap';

/** What the AAD binds a sealed record to, and which subkey it is sealed under (`record` by default). */
export interface SealPlace {
  tenantId: number;
  table: string;
  rowId: string;
  purpose?: SealPurpose;
}

function recordKey(keys: Subkeys, version: number, tenantId: number, purpose: SealPurpose = 'record'): Buffer {
  const key = keys.derive(version, tenantId, purpose);
  if (!key) throw new SealError('unknown-version', `no master key version ${version} in the keyring`);
  return key;
}

/** Seals under master `version` at `place`. */
export function seal(keys: Subkeys, version: number, place: SealPlace, plaintext: Buffer): Buffer {
  const { tenantId, table, rowId, purpose } = place;
  const key = recordKey(keys, version, tenantId, purpose);
  const out = Buffer.allocUnsafe(HEADER + plaintext.length + TAG);
  out[0] = FORMAT;
  out.writeUInt32BE(version, VERSION_AT);
  // The nonce is drawn straight into the output: one allocation per record, not two.
  fillRandom(out, NONCE_AT, NONCE);
  const c = createCipheriv('aes-256-gcm', key, out.subarray(NONCE_AT, HEADER));
  c.setAAD(aadFor(tenantId, table, rowId));
  const n = c.update(plaintext).copy(out, HEADER);
  c.final();
  c.getAuthTag().copy(out, HEADER + n);
  return out;
}

/** The key version a sealed record names, or undefined when it is not a sealed record. */
export function sealedVersion(sealed: Buffer): number | undefined {
  return sealed.length >= SEAL_OVERHEAD && sealed[0] === FORMAT ? sealed.readUInt32BE(VERSION_AT) : undefined;
}

/** Opens with whichever keyring version sealed it; any mismatch or damage throws SealError, never crashes. */
export function open(keys: Subkeys, place: SealPlace, sealed: Buffer): Buffer {
  const { tenantId, table, rowId, purpose } = place;
  const version = sealedVersion(sealed);
  if (version === undefined) throw new SealError('malformed', 'not a sealed record');
  const key = recordKey(keys, version, tenantId, purpose);
  const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(NONCE_AT, HEADER));
  d.setAAD(aadFor(tenantId, table, rowId));
  d.setAuthTag(sealed.subarray(sealed.length - TAG));
  const plaintext = d.update(sealed.subarray(HEADER, sealed.length - TAG));
  try {
    d.final();
  } catch {
    // Unauthenticated bytes must not linger in memory any more than they may leave this function.
    plaintext.fill(0);
    throw new SealError('does-not-open', 'ciphertext does not open');
  }
  return plaintext;
}
