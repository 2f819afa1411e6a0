// Per-person envelope encryption: a random data key per person, kept only wrapped under the tenant's `wrap`
// subkey. Destroying the wrapped key (in the api's key table) makes everything sealed under it unreadable.
import { createCipheriv, createDecipheriv, randomBytes, randomFillSync } from 'node:crypto';
import { aadFor, open, seal, SealError } from './aead.js';
import { KEY_BYTES } from './keyring.js';
import type { Subkeys } from './subkeys.js';

/** Personal layout: [0x02][nonce, 12][ciphertext][GCM tag, 16]; the key is the person's, not a master version's. */
export const PERSONAL_FORMAT = 0x02;
const NONCE_AT = 1;
const NONCE = 12;
const HEADER = 1 + NONCE;
const TAG = 16;
// The AAD "table" of a wrapped key: a wrapped key moved to another person or tenant does not unwrap.
const KEY_TABLE = 'subject_keys';

/** A new data key for `subject`, wrapped under the tenant's key of master `version`, and the key itself. */
export function newDataKey(keys: Subkeys, version: number, tenantId: number, subject: string): { key: Buffer; wrapped: Buffer } {
  const key = randomBytes(KEY_BYTES);
  return { key, wrapped: seal(keys, version, tenantId, KEY_TABLE, subject, key, 'wrap') };
}

/** The data key inside a wrapped key; SealError when it is not this tenant's key for this subject. */
export function unwrapDataKey(keys: Subkeys, tenantId: number, subject: string, wrapped: Buffer): Buffer {
  const key = open(keys, tenantId, KEY_TABLE, subject, wrapped, 'wrap');
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
    return seal(keys, version, tenantId, KEY_TABLE, subject, key, 'wrap');
  } finally {
    key.fill(0);
  }
}

/** The record AAD (tenant, table, row) followed by the subject behind its u32 byte length. */
function personalAad(tenantId: number, table: string, rowId: string, subject: string): Buffer {
  const base = aadFor(tenantId, table, rowId);
  const sLen = Buffer.byteLength(subject);
  const out = Buffer.allocUnsafe(base.length + 4 + sLen);
  base.copy(out, 0);
  out.writeUInt32BE(sLen, base.length);
  out.write(subject, base.length + 4, 'utf8');
  return out;
}

export function sealPersonal(key: Buffer, tenantId: number, table: string, rowId: string, subject: string, plaintext: Buffer): Buffer {
  const out = Buffer.allocUnsafe(HEADER + plaintext.length + TAG);
  out[0] = PERSONAL_FORMAT;
  randomFillSync(out, NONCE_AT, NONCE);
  const c = createCipheriv('aes-256-gcm', key, out.subarray(NONCE_AT, HEADER));
  c.setAAD(personalAad(tenantId, table, rowId, subject));
  const n = c.update(plaintext).copy(out, HEADER);
  c.final();
  c.getAuthTag().copy(out, HEADER + n);
  return out;
}

export function openPersonal(key: Buffer, tenantId: number, table: string, rowId: string, subject: string, sealed: Buffer): Buffer {
  if (sealed.length < HEADER + TAG || sealed[0] !== PERSONAL_FORMAT) throw new SealError('malformed', 'not a personal sealed record');
  const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(NONCE_AT, HEADER));
  d.setAAD(personalAad(tenantId, table, rowId, subject));
  d.setAuthTag(sealed.subarray(sealed.length - TAG));
  const plaintext = d.update(sealed.subarray(HEADER, sealed.length - TAG));
  try {
    d.final();
  } catch {
    plaintext.fill(0);
    throw new SealError('does-not-open', 'ciphertext does not open');
  }
  return plaintext;
}
