// Format-preserving tokens (card numbers, Unix times, email addresses): FF1 under the tenant's `fpe` subkey.
import { Ff1 } from './ff1.js';
import type { Subkeys } from './subkeys.js';
import { MAX_ATTEMPT, tokenOf, valueOf, type TokenFormat, type TokenItem } from '../proto/token-values.js';
import type { TokenResult__Output } from '../proto/loader.js';

/** The proto's enum numbers. They are part of the tweak: changing one changes every token of its format. */
const FORMAT_CODE: Record<TokenFormat, number> = { CREDITCARD: 1, UNIXTIME: 2, EMAIL: 3 };
const RADIX: Record<TokenFormat, number> = { CREDITCARD: 10, UNIXTIME: 10, EMAIL: 36 };
/** A card's attempts keep their last decimal digit (see prepareValue in proto/token-values.ts). */
const ATTEMPT_STEP: Record<TokenFormat, number> = { CREDITCARD: 10, UNIXTIME: 1, EMAIL: 1 };

/**
 * The fpe key comes from master key version 1, not the active one: a token stands in for its value wherever
 * it is stored or handed out, and a detokenize item names no key version, so tokens must outlive rotation.
 * Rotation protects new record ciphertexts; a leaked fpe key needs a re-tokenization, a different operation.
 */
const FPE_KEY_VERSION = 1;

/**
 * Tenant (u32), format (u8), attempt (u32), then the readable part. The fixed-width head makes the layout
 * unambiguous; the tenant repeats what the per-tenant key already separates, as the contract describes it.
 */
function tweakFor(tenantId: number, item: TokenItem, attempt: number): Buffer {
  const tweak = Buffer.allocUnsafe(9 + Buffer.byteLength(item.kept));
  tweak.writeUInt32BE(tenantId, 0);
  tweak[4] = FORMAT_CODE[item.format];
  tweak.writeUInt32BE(attempt, 5);
  tweak.write(item.kept, 9);
  return tweak;
}

// Keyed by the subkey Buffer, which Subkeys caches per tenant: a tenant's cipher lives as long as its key.
const ciphers = new WeakMap<Buffer, Ff1>();

function cipherFor(keys: Subkeys, tenantId: number): Ff1 {
  const key = keys.derive(FPE_KEY_VERSION, tenantId, 'fpe');
  if (!key) throw new Error('the keyring lost its first key version');
  let ff1 = ciphers.get(key);
  if (!ff1) ciphers.set(key, (ff1 = new Ff1(key)));
  return ff1;
}

/** Items of one radix run through FF1 together, so a batch costs one AES call per round step per radix. */
function byRadix(items: readonly TokenItem[]): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  items.forEach((item, k) => {
    const radix = RADIX[item.format];
    const group = groups.get(radix);
    if (group) group.push(k);
    else groups.set(radix, [k]);
  });
  return groups;
}

/** A token result before the batch adds its lookup hash. */
export type Tokenized = Omit<TokenResult__Output, 'index'>;

/** A token never equals its value: the rare item whose secret part comes back unchanged takes its next attempt. */
export function tokenizeAll(keys: Subkeys, tenantId: number, items: readonly TokenItem[]): Tokenized[] {
  const ff1 = cipherFor(keys, tenantId);
  const out = new Array<Tokenized>(items.length);
  for (const [radix, members] of byRadix(items)) {
    const secrets = ff1.encryptAll(
      radix,
      members.map((k) => tweakFor(tenantId, items[k]!, items[k]!.attempt)),
      members.map((k) => items[k]!.secret),
    );
    members.forEach((k, j) => {
      const item = items[k]!;
      let attempt = item.attempt;
      let secret = secrets[j]!;
      while (secret === item.secret) {
        attempt += ATTEMPT_STEP[item.format];
        if (attempt > MAX_ATTEMPT) throw new Error('a value encrypted to itself at its last attempt');
        secret = ff1.encrypt(radix, tweakFor(tenantId, item, attempt), item.secret);
      }
      out[k] = { token: tokenOf(item, secret), attempt };
    });
  }
  return out;
}

/** The normalised value of each token, given the attempt its tokenization reported. */
export function detokenizeAll(keys: Subkeys, tenantId: number, items: readonly TokenItem[]): string[] {
  const ff1 = cipherFor(keys, tenantId);
  const out = new Array<string>(items.length);
  for (const [radix, members] of byRadix(items)) {
    const secrets = ff1.decryptAll(
      radix,
      members.map((k) => tweakFor(tenantId, items[k]!, items[k]!.attempt)),
      members.map((k) => items[k]!.secret),
    );
    members.forEach((k, j) => (out[k] = valueOf(items[k]!, secrets[j]!)));
  }
  return out;
}
