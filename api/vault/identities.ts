// How a user is named on the wire: the five modes, and the profile fields that become hashed lookup indexes.
import type { IndexKind } from '../tokenizer-client.js';

export const MODES = ['login', 'token', 'email', 'phone', 'custom'] as const;
export type Mode = (typeof MODES)[number];
export type IndexMode = Exclude<Mode, 'token'>;

export const INDEX_FIELDS: readonly IndexMode[] = ['login', 'email', 'phone', 'custom'];

export const INDEX_KIND: Record<IndexMode, IndexKind> = {
  login: 'LOGIN',
  email: 'EMAIL',
  phone: 'PHONE',
  custom: 'CUSTOM',
};

/** Pro tokens are random 128-bit values, not RFC 4122 v4: check only the shape. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * The first index field of a profile holding what cannot be indexed (neither a string nor a number; null and absent
 * are no value): such a value would be stored and never found by its mode.
 */
export function unindexable(profile: Record<string, unknown>): IndexMode | undefined {
  return INDEX_FIELDS.find((field) => {
    const v = profile[field];
    return v !== undefined && v !== null && typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v));
  });
}

/** What a 400 says of an unindexable field. */
export function unindexableMessage(field: IndexMode): string {
  return `${field} is indexed: it must be a string or a number`;
}

/** The top-level `login`, `email`, `phone`, `custom` values of a profile, as strings; absent when empty. */
export function indexValues(profile: Record<string, unknown>): Partial<Record<IndexMode, string>> {
  const out: Partial<Record<IndexMode, string>> = {};
  for (const field of INDEX_FIELDS) {
    const v = profile[field];
    if (typeof v === 'string' && v.trim() !== '') out[field] = v;
    else if (typeof v === 'number' && Number.isFinite(v)) out[field] = String(v);
  }
  return out;
}
