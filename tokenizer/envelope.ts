// Per-person envelope encryption: a random data key per person, kept only wrapped under the tenant's `wrap`
// subkey. Destroying the wrapped key (in the api's key table) makes everything sealed under it unreadable.
import { createCipheriv, createDecipheriv, createHmac, randomFillSync } from 'node:crypto';
import { fillRandom, randomBuffer } from './random.js';
import { aadFor, open, seal, SealError } from './aead.js';
import { KEY_BYTES } from './keyring.js';
import type { Subkeys } from './subkeys.js';

/**
 * Personal layout, written by every new seal: [0x03][salt, 24][ciphertext][GCM tag, 16]. The key is the person's
 * (or the tenant's own data key's, subject = nil UUID), never a master version's.
 *
 * Why not the data key itself: a data key lives as long as its person, and nothing counts its seals, so a hot
 * person could in principle pass NIST SP 800-38D's 2^32 bound for random 96-bit nonces under one key. 0x03 removes
 * the bound instead of counting it: each seal draws a random 192-bit salt and uses a one-time AES-256-GCM key
 *   K_msg = HKDF-Expand-SHA256(PRK = data key, info = "strongroom/personal-seal/v3" ‖ salt, L = 32)
 *         = HMAC-SHA256(data key, info ‖ 0x01)                      (RFC 5869 §2.3)
 * with the salt's last 12 bytes as the GCM nonce. HKDF-Extract is skipped as RFC 5869 §3.3 allows for a key that
 * is already uniformly random (a data key is 32 bytes from the CSPRNG); the salt rides in `info`, as in age's
 * payload key (random nonce → HKDF → a key for one file). Each derived key seals one message, so the per-key nonce
 * bound never applies; two seals share a key only if two 192-bit salts collide: about 2^-65 after 2^64 seals of
 * one person. Cost: one HMAC-SHA256 per seal and open, a few µs (test/bench/personal-seal.ts measures it).
 */
export const PERSONAL_FORMAT = 0x03;
const SALT_AT = 1;
const SALT = 24;
const HEADER = 1 + SALT;
const NONCE_AT = HEADER - 12;
const TAG = 16;
// Changing this label changes every derived key: nothing sealed in format 0x03 would open again.
const DERIVE_INFO = Buffer.from('strongroom/personal-seal/v3');
const EXPAND_BLOCK_1 = Buffer.of(1);

/**
 * The first personal layout, still opened (data sealed before 0x03 needs no migration; a rewrite of the record
 * seals it as 0x03): [0x02][nonce, 12][ciphertext][GCM tag, 16], AES-256-GCM under the data key directly.
 */
export const PERSONAL_FORMAT_V2 = 0x02;
const V2_NONCE_AT = 1;
const V2_HEADER = 1 + 12;
// The AAD "table" of a wrapped key: a wrapped key moved to another person or tenant does not unwrap.
const KEY_TABLE = 'subject_keys';

/** A new data key for `subject`, wrapped under the tenant's key of master `version`, and the key itself. */
export function newDataKey(keys: Subkeys, version: number, tenantId: number, subject: string): { key: Buffer; wrapped: Buffer } {
  const key = randomBuffer(KEY_BYTES);
  return { key, wrapped: seal(keys, version, { tenantId, table: KEY_TABLE, rowId: subject, purpose: 'wrap' }, key) };
}

/** The data key inside a wrapped key; SealError when it is not this tenant's key for this subject. */
export function unwrapDataKey(keys: Subkeys, tenantId: number, subject: string, wrapped: Buffer): Buffer {
  const key = open(keys, { tenantId, table: KEY_TABLE, rowId: subject, purpose: 'wrap' }, wrapped);
  if (key.length !== KEY_BYTES) {
    key.fill(0);
    throw new SealError('malformed', 'not a data key');
  }
  return key;
}

/** A wrapped key wrapped again under master `version` (rotation): the data key, and so the data, stay. */
export function rewrapDataKey(keys: Subkeys, version: number, tenantId: number, subject: string, wrapped: Buffer): Buffer {
  const key = unwrapDataKey(keys, tenantId, subject, wrapped);
  try {
    return seal(keys, version, { tenantId, table: KEY_TABLE, rowId: subject, purpose: 'wrap' }, key);
  } finally {
    key.fill(0);
  }
}

/** What a personal seal's AAD binds it to: the record's place and the person it belongs to. */
export interface PersonalPlace {
  tenantId: number;
  table: string;
  rowId: string;
  subject: string;
}

/** The record AAD (tenant, table, row) followed by the subject behind its u32 byte length. */
function personalAad({ tenantId, table, rowId, subject }: PersonalPlace): Buffer {
  const base = aadFor(tenantId, table, rowId);
  const sLen = Buffer.byteLength(subject);
  const out = Buffer.allocUnsafe(base.length + 4 + sLen);
  base.copy(out, 0);
  out.writeUInt32BE(sLen, base.length);
  out.write(subject, base.length + 4, 'utf8');
  return out;
}

/** The one-time key of a 0x03 seal (see PERSONAL_FORMAT): HMAC-SHA256(data key, info ‖ salt ‖ 0x01). */
function derivedKey(key: Buffer, salt: Buffer): Buffer {
  return createHmac('sha256', key).update(DERIVE_INFO).update(salt).update(EXPAND_BLOCK_1).digest();
}

/** The one-time key ‖ nonce a 0x03 seal was made with (tests show no two seals share either). */
export function derivedKeyOf(key: Buffer, sealed: Buffer): Buffer {
  if (sealed.length < HEADER + TAG || sealed[0] !== PERSONAL_FORMAT) throw new SealError('malformed', 'not a 0x03 personal sealed record');
  return Buffer.concat([derivedKey(key, sealed.subarray(SALT_AT, HEADER)), sealed.subarray(NONCE_AT, HEADER)]);
}

/** Seals under a one-time key derived from the data key `key` (format 0x03). */
export function sealPersonal(key: Buffer, place: PersonalPlace, plaintext: Buffer): Buffer {
  const out = Buffer.allocUnsafe(HEADER + plaintext.length + TAG);
  out[0] = PERSONAL_FORMAT;
  fillRandom(out, SALT_AT, SALT);
  const once = derivedKey(key, out.subarray(SALT_AT, HEADER));
  try {
    const c = createCipheriv('aes-256-gcm', once, out.subarray(NONCE_AT, HEADER));
    c.setAAD(personalAad(place));
    const n = c.update(plaintext).copy(out, HEADER);
    c.final();
    c.getAuthTag().copy(out, HEADER + n);
  } finally {
    once.fill(0);
  }
  return out;
}

/** Opens format 0x03, and 0x02 written before it; SealError on any damage, another AAD or another key. */
export function openPersonal(key: Buffer, place: PersonalPlace, sealed: Buffer): Buffer {
  let d;
  let header: number;
  if (sealed.length >= HEADER + TAG && sealed[0] === PERSONAL_FORMAT) {
    header = HEADER;
    const once = derivedKey(key, sealed.subarray(SALT_AT, HEADER));
    d = createDecipheriv('aes-256-gcm', once, sealed.subarray(NONCE_AT, HEADER));
    once.fill(0);
  } else if (sealed.length >= V2_HEADER + TAG && sealed[0] === PERSONAL_FORMAT_V2) {
    header = V2_HEADER;
    d = createDecipheriv('aes-256-gcm', key, sealed.subarray(V2_NONCE_AT, V2_HEADER));
  } else {
    throw new SealError('malformed', 'not a personal sealed record');
  }
  d.setAAD(personalAad(place));
  d.setAuthTag(sealed.subarray(sealed.length - TAG));
  const plaintext = d.update(sealed.subarray(header, sealed.length - TAG));
  try {
    d.final();
  } catch {
    plaintext.fill(0);
    throw new SealError('does-not-open', 'ciphertext does not open');
  }
  return plaintext;
}

/** A 0x02 seal, as written before 0x03: kept only so tests can prove old data still opens. Never used to write. */
export function sealPersonalV2(key: Buffer, place: PersonalPlace, plaintext: Buffer): Buffer {
  const out = Buffer.allocUnsafe(V2_HEADER + plaintext.length + TAG);
  out[0] = PERSONAL_FORMAT_V2;
  randomFillSync(out, V2_NONCE_AT, V2_HEADER - V2_NONCE_AT);
  const c = createCipheriv('aes-256-gcm', key, out.subarray(V2_NONCE_AT, V2_HEADER));
  c.setAAD(personalAad(place));
  const n = c.update(plaintext).copy(out, V2_HEADER);
  c.final();
  c.getAuthTag().copy(out, V2_HEADER + n);
  return out;
}
