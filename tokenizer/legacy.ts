// The upgrade of a database sealed before per-person keys (commit 11833ee and older): each value opened as that
// version sealed it and sealed again under a person's data key in the same call, so no plaintext leaves the process.
// That version sealed everything as format 0x01 under the tenant's `record` subkey of the master version in its
// header, derived without a tenant salt (salts came with Global0007TenantKeySalt; tenants made before keep none),
// with the AAD (tenant, table, row) as its api chose table and row (api/vault/jobs/legacy.ts lists them).
import { open, SealError } from './aead.js';
import { newDataKey, sealPersonal, unwrapDataKey } from './envelope.js';
import { BadItemError } from './batch.js';
import type { Subkeys } from './subkeys.js';
import type { ResealLegacyRequest__Output, ResealLegacyResponse__Output } from '../proto/loader.js';

const MAX_NAME = 256;
/** Items per call: the api sends batches of a few hundred (a file's content alone). */
export const MAX_RESEAL_ITEMS = 5_000;

function checkName(i: number, field: string, value: string): void {
  if (!value) throw new BadItemError(`items[${i}].${field} is empty`);
  if (value.length > MAX_NAME) throw new BadItemError(`items[${i}].${field} is longer than ${MAX_NAME} characters`);
}

/** Checks the whole request before any crypto: a bad last item costs nothing and returns nothing. */
function validate(req: ResealLegacyRequest__Output): void {
  if (!Number.isInteger(req.tenant_id) || req.tenant_id < 1) throw new BadItemError('tenant_id must be 1 or more');
  if (req.tenant_salt.length > 64) throw new BadItemError('tenant_salt is longer than 64 bytes');
  if (req.items.length > MAX_RESEAL_ITEMS) throw new BadItemError(`items holds more than ${MAX_RESEAL_ITEMS}`);
  const made = new Set<string>();
  req.new_key_subjects.forEach((s, i) => {
    if (!s || s.length > MAX_NAME) throw new BadItemError(`new_key_subjects[${i}] is empty or too long`);
    if (made.has(s)) throw new BadItemError(`new_key_subjects[${i}] repeats a subject`);
    made.add(s);
  });
  req.items.forEach((item, i) => {
    checkName(i, 'from_table', item.from_table);
    checkName(i, 'from_row_id', item.from_row_id);
    checkName(i, 'table', item.table);
    checkName(i, 'row_id', item.row_id);
    checkName(i, 'subject', item.subject);
    if (!item.wrapped_key.length && !made.has(item.subject)) throw new BadItemError(`items[${i}] names a subject without its key`);
    if (item.wrapped_key.length && made.has(item.subject)) throw new BadItemError(`items[${i}] sends a key for a subject made in this call`);
  });
}

/**
 * Opens every item the legacy way and seals it under its subject's data key. `keys` are the unsalted subkeys (the
 * legacy derivation); new keys are wrapped under the tenant's derivation today (`keys.withSalt(tenant_salt)`).
 */
export function resealLegacy(keys: Subkeys, activeVersion: number, req: ResealLegacyRequest__Output): ResealLegacyResponse__Output & { tenantSeals: number } {
  validate(req);
  const tenant = req.tenant_id;
  const wrapKeys = keys.withSalt(req.tenant_salt);
  const dataKeys = new Map<string, Buffer>();
  try {
    const wrapped_keys = req.new_key_subjects.map((subject) => {
      const made = newDataKey(wrapKeys, activeVersion, tenant, subject);
      dataKeys.set(subject, made.key);
      return made.wrapped;
    });
    const keyOf = (i: number, subject: string, wrapped: Buffer): Buffer => {
      const id = wrapped.length ? `${subject}\0${wrapped.toString('base64')}` : subject;
      let key = dataKeys.get(id);
      if (!key) {
        try {
          key = unwrapDataKey(wrapKeys, tenant, subject, wrapped);
        } catch (err) {
          if (err instanceof SealError) throw new BadItemError(`items[${i}]: the wrapped key does not unwrap`);
          throw err;
        }
        dataKeys.set(id, key);
      }
      return key;
    };
    const resealed = req.items.map((item, i) => {
      let plain: Buffer;
      try {
        plain = open(keys, { tenantId: tenant, table: item.from_table, rowId: item.from_row_id }, item.ciphertext);
      } catch (err) {
        if (err instanceof SealError) throw new BadItemError(`items[${i}]: the legacy value does not open (${err.reason})`);
        throw err;
      }
      try {
        return sealPersonal(keyOf(i, item.subject, item.wrapped_key), { tenantId: tenant, table: item.table, rowId: item.row_id, subject: item.subject }, plain);
      } finally {
        plain.fill(0);
      }
    });
    return { wrapped_keys, resealed, tenantSeals: wrapped_keys.length };
  } finally {
    for (const k of dataKeys.values()) k.fill(0);
  }
}
