// Lookup hashes: HMAC-SHA256 of normalised values under a per-tenant key, separated by kind.
import { createHmac } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Subkeys } from './subkeys.js';

export type IndexKind = 'LOGIN' | 'EMAIL' | 'PHONE' | 'CUSTOM' | 'DEDUPE';
export const INDEX_KINDS: readonly IndexKind[] = ['LOGIN', 'EMAIL', 'PHONE', 'CUSTOM', 'DEDUPE'];

/**
 * Index keys come from master key version 1, not the active one: hashes must stay equal across key rotation,
 * or every stored index would have to be recomputed before lookups work again.
 */
const INDEX_KEY_VERSION = 1;

export function normalise(kind: IndexKind, value: string): string {
  switch (kind) {
    case 'EMAIL': {
      let v = value;
      try {
        v = decodeURIComponent(value);
      } catch {
        // Not URL-encoded text: keep it as it is.
      }
      return v.trim().toLowerCase();
    }
    case 'PHONE': {
      const trimmed = value.trim();
      const parsed = parsePhoneNumberFromString(trimmed, 'GB');
      if (parsed?.isPossible()) return parsed.number;
      // Never reject a phone: index the bare digits (with a leading + kept) when it does not parse.
      return trimmed.replace(/[\s\-().]/g, '');
    }
    case 'LOGIN':
    case 'CUSTOM':
      return value.trim();
    case 'DEDUPE':
      return value;
  }
}

export function blindIndex(keys: Subkeys, tenantId: number, kind: IndexKind, value: string): Buffer {
  const normalised = normalise(kind, value);
  if (normalised === '') return Buffer.alloc(0);
  const key = keys.derive(INDEX_KEY_VERSION, tenantId, kind === 'DEDUPE' ? 'dedupe' : 'index');
  if (!key) throw new Error('the keyring lost its first key version');
  return createHmac('sha256', key).update(kind).update('\0').update(normalised, 'utf8').digest();
}
