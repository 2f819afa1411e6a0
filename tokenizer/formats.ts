// Format-preserving tokens (card numbers, Unix times, email addresses): FF1 under the tenant's `fpe` subkey.
import { Ff1 } from './ff1.js';
import type { Subkeys } from './subkeys.js';

export type TokenFormat = 'CREDITCARD' | 'UNIXTIME' | 'EMAIL';
export const TOKEN_FORMATS: readonly TokenFormat[] = ['CREDITCARD', 'UNIXTIME', 'EMAIL'];
/** The proto's enum numbers. They are part of the tweak: changing one changes every token of its format. */
const FORMAT_CODE: Record<TokenFormat, number> = { CREDITCARD: 1, UNIXTIME: 2, EMAIL: 3 };
const RADIX: Record<TokenFormat, number> = { CREDITCARD: 10, UNIXTIME: 10, EMAIL: 36 };
/** A card's attempts keep their last decimal digit (see splitCard). */
const ATTEMPT_STEP: Record<TokenFormat, number> = { CREDITCARD: 10, UNIXTIME: 1, EMAIL: 1 };
export const MAX_ATTEMPT = 2 ** 32 - 1;

/**
 * The fpe key comes from master key version 1, not the active one: a token stands in for its value wherever
 * it is stored or handed out, and a detokenize item names no key version, so tokens must outlive rotation.
 * Rotation protects new record ciphertexts; a leaked fpe key needs a re-tokenization, a different operation.
 */
const FPE_KEY_VERSION = 1;

const ADDRESS_MAX = 254;
const LOCAL_MAX = 64;
/** Marks, in `kept`, where an encrypted letter or digit goes; the email grammar admits no control characters. */
const HIDDEN = '\0';
// A dot-atom local part (RFC 5322: letters, digits and !#$%&'*+/=?^_`{|}~- between single dots) and a domain
// of letter-digit-hyphen labels. FF1 turns letters and digits into letters and digits and leaves everything
// else in place, so a token passes the same checks as an address.
const ATEXT = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL = new RegExp(`^${ATEXT}(?:\\.${ATEXT})*$`);
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN = new RegExp(`^(?:${LABEL}\\.)+${LABEL}$`);

/** A value or token that does not fit its format; the message is a predicate and never quotes the text. */
export class TokenFormatError extends Error {
  override name = 'TokenFormatError';
}

/** A value or token split into the numerals FF1 works on and what stays readable in the token. */
export interface TokenItem {
  format: TokenFormat;
  secret: string;
  /** Bound into the tweak, so a token's readable part cannot be swapped for another's. */
  kept: string;
  attempt: number;
}

type Split = Pick<TokenItem, 'secret' | 'kept'>;

/** The Luhn check digit that completes `body`. */
export function luhnDigit(body: string): number {
  let sum = 0;
  for (let k = body.length - 1, double = true; k >= 0; k--, double = !double) {
    const d = body.charCodeAt(k) - 48;
    sum += double ? (d > 4 ? 2 * d - 9 : 2 * d) : d;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * Cards: FF1 over every digit but the last, which becomes the check digit of the result, so every token passes
 * the Luhn check. A value whose last digit is not its check digit (a test number, a typo) is taken as well:
 * there are ten times fewer Luhn-valid numbers than digit strings, so the token alone cannot say how far off
 * that digit was. The attempt does: a card's attempts are those whose last decimal digit is that offset (0
 * for a real card number), ten apart, and detokenize reads the offset back from the attempt it is given.
 */
function splitCard(text: string): { digits: string; body: string } {
  const digits = text.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) throw new TokenFormatError('is not a card number: it needs 12 to 19 digits once spaces and dashes are removed');
  return { digits, body: digits.slice(0, -1) };
}

/** How far a card's last digit is past the Luhn check digit of the rest, 0 to 9. */
function luhnOffset(digits: string, body: string): number {
  return (digits.charCodeAt(body.length) - 48 - luhnDigit(body) + 10) % 10;
}

/**
 * From 10 digits on, the leading digit stays: a 10-digit time (2001 to 2286) gives a 10-digit time in the
 * same 31.7-year span, and a 13-digit millisecond time stays in its own. Shorter times (up to 2001, often
 * birth dates) are encrypted whole: keeping a digit there would tell the time within 3.2 years.
 */
function splitUnixTime(text: string): Split {
  if (!/^\d{6,19}$/.test(text)) throw new TokenFormatError('is not a Unix time: it needs 6 to 19 decimal digits');
  const keep = text.length >= 10 ? 1 : 0;
  return { secret: text.slice(keep), kept: text.slice(0, keep) };
}

/**
 * Lowercased and trimmed first, as the email index normalises. The letters and digits of the local part and
 * of every domain label but the top-level domain are encrypted (radix 36); `kept` is the address with each
 * of them replaced by HIDDEN, so the other characters, the @ and the top-level domain stay where they were.
 */
function splitEmail(text: string): Split {
  const address = text.trim().toLowerCase();
  if (address.length > ADDRESS_MAX) throw new TokenFormatError(`is not an email address: it is longer than ${ADDRESS_MAX} characters`);
  const at = address.indexOf('@');
  if (at < 1 || at !== address.lastIndexOf('@')) throw new TokenFormatError('is not an email address: it needs the form local@domain.tld');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length > LOCAL_MAX) throw new TokenFormatError(`is not an email address: its local part is longer than ${LOCAL_MAX} characters`);
  if (!LOCAL.test(local)) {
    throw new TokenFormatError("is not an email address: its local part needs letters, digits and !#$%&'*+/=?^_`{|}~- between single dots");
  }
  if (!DOMAIN.test(domain)) {
    throw new TokenFormatError('is not an email address: its domain needs labels of letters, digits and inner hyphens, and a top-level domain');
  }
  const tld = at + 1 + domain.lastIndexOf('.');
  const head = address.slice(0, tld);
  const secret = head.replace(/[^a-z0-9]/g, '');
  if (secret.length < 4) throw new TokenFormatError('is too short to tokenize: it needs 4 letters or digits outside the top-level domain');
  return { secret, kept: head.replace(/[a-z0-9]/g, HIDDEN) + address.slice(tld) };
}

function fill(kept: string, secret: string): string {
  let k = 0;
  return kept.replaceAll(HIDDEN, () => secret[k++]!);
}

/** Checks and splits a value to tokenize; for a card, `attempt` moves up to the first one its offset allows. */
export function prepareValue(format: TokenFormat, value: string, attempt: number): TokenItem {
  switch (format) {
    case 'CREDITCARD': {
      const { digits, body } = splitCard(value);
      const first = attempt + ((luhnOffset(digits, body) - (attempt % 10) + 10) % 10);
      if (first > MAX_ATTEMPT) throw new TokenFormatError(`leaves no card attempt up to ${MAX_ATTEMPT}: ask a lower one`);
      return { format, attempt: first, secret: body, kept: '' };
    }
    case 'UNIXTIME':
      return { format, attempt, ...splitUnixTime(value) };
    case 'EMAIL':
      return { format, attempt, ...splitEmail(value) };
  }
}

/** Checks and splits a token to detokenize: the same grammar as values, and a card token passes the Luhn check. */
export function prepareToken(format: TokenFormat, token: string, attempt: number): TokenItem {
  switch (format) {
    case 'CREDITCARD': {
      const { digits, body } = splitCard(token);
      if (luhnOffset(digits, body) !== 0) throw new TokenFormatError('is not a card token: it fails the Luhn check');
      return { format, attempt, secret: body, kept: '' };
    }
    case 'UNIXTIME':
      return { format, attempt, ...splitUnixTime(token) };
    case 'EMAIL':
      return { format, attempt, ...splitEmail(token) };
  }
}

function tokenOf(item: TokenItem, secret: string): string {
  switch (item.format) {
    case 'CREDITCARD':
      return secret + luhnDigit(secret);
    case 'UNIXTIME':
      return item.kept + secret;
    case 'EMAIL':
      return fill(item.kept, secret);
  }
}

function valueOf(item: TokenItem, secret: string): string {
  return item.format === 'CREDITCARD' ? secret + ((luhnDigit(secret) + (item.attempt % 10)) % 10) : tokenOf(item, secret);
}

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

export interface TokenResult {
  token: string;
  attempt: number;
}

/** A token never equals its value: the rare item whose secret part comes back unchanged takes its next attempt. */
export function tokenizeAll(keys: Subkeys, tenantId: number, items: readonly TokenItem[]): TokenResult[] {
  const ff1 = cipherFor(keys, tenantId);
  const out = new Array<TokenResult>(items.length);
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
