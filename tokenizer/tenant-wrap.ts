// Persons' data keys of a tenant with its own key-encryption key: wrapped under the tenant key (which only the
// tenant's HSM object opens, tokenizer/tenant-keys.ts) instead of the tenant's master-derived `wrap` subkey.
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { aadFor, seal, SealError } from './aead.js';
import { fillRandom, randomBuffer } from './random.js';
import { KEY_BYTES } from './keyring.js';
import { newDataKey, unwrapDataKey } from './envelope.js';
import type { Subkeys } from './subkeys.js';

/**
 * [0x04][u32 0][salt, 24][wrapped data key, 32][GCM tag, 16]. The four zero bytes sit where a master-wrapped key
 * (0x01) names its master version, so the key table's `key_version` of such a key is 0: "under the tenant's KEK",
 * which a master-key rotation leaves alone. Each wrap uses a one-time key HMAC-SHA256(tenant key, info ‖ salt ‖ 1)
 * and the salt's last 12 bytes as nonce (as the 0x03 personal seal does): no count of wraps is ever needed.
 */
export const TENANT_WRAP_FORMAT = 0x04;
const SALT_AT = 5;
const SALT = 24;
const HEADER = SALT_AT + SALT;
const NONCE_AT = HEADER - 12;
const TAG = 16;
// Changing this label changes every derived key: no data key wrapped under a tenant key would open again.
const INFO = Buffer.from('strongroom/tenant-wrap/v1');
// The same AAD table as a master-wrapped key: moved to another person or tenant, it does not unwrap.
const KEY_TABLE = 'subject_keys';

/** A data key wrapped under a tenant key, or the batch names none: the tenant's KEK is needed and unavailable. */
export class TenantKeyUnavailableError extends Error {
  override name = 'TenantKeyUnavailableError';
}

function onceKey(tenantKey: Buffer, salt: Buffer): Buffer {
  return createHmac('sha256', tenantKey).update(INFO).update(salt).update(Buffer.of(1)).digest();
}

export function wrapUnderTenantKey(tenantKey: Buffer, tenantId: number, subject: string, key: Buffer): Buffer {
  const out = Buffer.alloc(HEADER + key.length + TAG);
  out[0] = TENANT_WRAP_FORMAT;
  fillRandom(out, SALT_AT, SALT);
  const once = onceKey(tenantKey, out.subarray(SALT_AT, HEADER));
  try {
    const c = createCipheriv('aes-256-gcm', once, out.subarray(NONCE_AT, HEADER));
    c.setAAD(aadFor(tenantId, KEY_TABLE, subject));
    const n = c.update(key).copy(out, HEADER);
    c.final();
    c.getAuthTag().copy(out, HEADER + n);
  } finally {
    once.fill(0);
  }
  return out;
}

function unwrapUnderTenantKey(tenantKey: Buffer, tenantId: number, subject: string, wrapped: Buffer): Buffer {
  if (wrapped.length !== HEADER + KEY_BYTES + TAG) throw new SealError('malformed', 'not a data key wrapped under a tenant key');
  const once = onceKey(tenantKey, wrapped.subarray(SALT_AT, HEADER));
  const d = createDecipheriv('aes-256-gcm', once, wrapped.subarray(NONCE_AT, HEADER));
  once.fill(0);
  d.setAAD(aadFor(tenantId, KEY_TABLE, subject));
  d.setAuthTag(wrapped.subarray(wrapped.length - TAG));
  const key = d.update(wrapped.subarray(HEADER, wrapped.length - TAG));
  try {
    d.final();
  } catch {
    key.fill(0);
    throw new SealError('does-not-open', 'the wrapped key does not open under the tenant key');
  }
  return key;
}

/** What wraps a tenant's data keys: its tenant key when it has a KEK, else master `version`'s `wrap` subkey. */
export interface KeyWrap {
  keys: Subkeys;
  version: number;
  tenantId: number;
  tenantKey: Buffer | undefined;
}

/** The data key inside a wrapped key of either kind; SealError when it is not this tenant's key for `subject`. */
export function unwrapAny(w: KeyWrap, subject: string, wrapped: Buffer): Buffer {
  if (wrapped[0] !== TENANT_WRAP_FORMAT) return unwrapDataKey(w.keys, w.tenantId, subject, wrapped);
  if (!w.tenantKey) throw new TenantKeyUnavailableError('a data key wrapped under the tenant key needs the tenant\'s key-encryption key');
  return unwrapUnderTenantKey(w.tenantKey, w.tenantId, subject, wrapped);
}

/** A new data key for `subject`, and its wrapped copy. */
export function newWrappedKey(w: KeyWrap, subject: string): { key: Buffer; wrapped: Buffer } {
  if (!w.tenantKey) return newDataKey(w.keys, w.version, w.tenantId, subject);
  const key = randomBuffer(KEY_BYTES);
  return { key, wrapped: wrapUnderTenantKey(w.tenantKey, w.tenantId, subject, key) };
}

/** A wrapped key (of either kind) wrapped again by what wraps the tenant's keys now: rotation, or a KEK migration. */
export function rewrapAny(w: KeyWrap, subject: string, wrapped: Buffer): Buffer {
  const key = unwrapAny(w, subject, wrapped);
  try {
    return w.tenantKey
      ? wrapUnderTenantKey(w.tenantKey, w.tenantId, subject, key)
      : seal(w.keys, w.version, { tenantId: w.tenantId, table: KEY_TABLE, rowId: subject, purpose: 'wrap' }, key);
  } finally {
    key.fill(0);
  }
}
