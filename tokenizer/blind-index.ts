// Lookup hashes: HMAC-SHA256 of normalised values under a per-tenant key, separated by kind.
import { createHmac } from 'node:crypto';
import type { Subkeys } from './subkeys.js';
import { e164 } from './phone.js';
import type { IndexKind } from '../proto/loader.js';

export type { IndexKind } from '../proto/loader.js';
export const INDEX_KINDS: readonly IndexKind[] = ['LOGIN', 'EMAIL', 'PHONE', 'CUSTOM', 'DEDUPE'];

/**
 * Index keys come from master key version 1, not the active one: a hash must stay equal across key
 * rotation, or every stored index would have to be recomputed before lookups work again. Rotation protects
 * new record ciphertexts; an index key that leaked needs a re-index, which is a different operation.
 */
const INDEX_KEY_VERSION = 1;
const EMPTY = Buffer.alloc(0);

/** Deeper nesting than this is not an email someone typed; capping it keeps the cost linear in the length. */
const MAX_DECODE_ROUNDS = 4;

/**
 * Decoded until it stops changing, so normalising twice gives what once gives ("%2541" → "%41" → "a").
 * Input nested deeper than the cap is kept as written: still idempotent, because lowercasing and trimming
 * do not change how deep the nesting goes.
 */
function decodeEscapes(value: string): string {
  let v = value;
  for (let round = 0; round <= MAX_DECODE_ROUNDS; round++) {
    let next: string;
    try {
      next = decodeURIComponent(v);
    } catch {
      return v; // not valid percent-encoding: keep the text as it is
    }
    if (next === v) return v;
    v = next;
  }
  return value;
}

function normaliseEmail(value: string): string {
  return decodeEscapes(value).toLowerCase().trim();
}

function normalisePhone(value: string): string {
  const trimmed = value.trim();
  const parsed = e164(trimmed);
  if (parsed) return parsed;
  // Never reject a phone. The stripped form is parsed again so the result is a fixed point (idempotent).
  const stripped = trimmed.replace(/[\s\-()]/g, '');
  return e164(stripped) ?? stripped;
}

export function normalise(kind: IndexKind, value: string): string {
  switch (kind) {
    case 'EMAIL':
      return normaliseEmail(value);
    case 'PHONE':
      return normalisePhone(value);
    case 'LOGIN':
    case 'CUSTOM':
      return value.trim();
    case 'DEDUPE':
      return value;
  }
}

/** 32 bytes, or an empty buffer when nothing is left to index after normalisation. */
export function blindIndex(keys: Subkeys, tenantId: number, kind: IndexKind, value: string): Buffer {
  const normalised = normalise(kind, value);
  if (normalised === '') return EMPTY;
  const key = keys.derive(INDEX_KEY_VERSION, tenantId, kind === 'DEDUPE' ? 'dedupe' : 'index');
  if (!key) throw new Error('the keyring lost its first key version');
  // The kind name (no NUL inside) and a NUL come first: one string under two kinds never hashes alike.
  return createHmac('sha256', key).update(kind).update('\0').update(normalised, 'utf8').digest();
}
