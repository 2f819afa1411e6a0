// The token value grammar the api and the tokenizer share: which values and tokens each format accepts, how
// they split into what FF1 encrypts and what stays readable, and what a token's lookup hash is computed over.
// No key material here: the api checks values with it before a call, the tokenizer before it encrypts.
import type { TokenFormat } from './loader.js';

export type { TokenFormat } from './loader.js';
export const TOKEN_FORMATS: readonly TokenFormat[] = ['CREDITCARD', 'UNIXTIME', 'EMAIL'];
export const MAX_ATTEMPT = 2 ** 32 - 1;

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

/** What a token's lookup hash is computed over (a DEDUPE hash item of this value gives the same hash). */
export function tokenIndexValue(token: string): string {
  return `base\0${token}`;
}

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

/** The token written from an item and its encrypted secret. */
export function tokenOf(item: TokenItem, secret: string): string {
  switch (item.format) {
    case 'CREDITCARD':
      return secret + luhnDigit(secret);
    case 'UNIXTIME':
      return item.kept + secret;
    case 'EMAIL':
      return fill(item.kept, secret);
  }
}

/** The value written from a token's item and its decrypted secret; a card gets back its offset from the attempt. */
export function valueOf(item: TokenItem, secret: string): string {
  return item.format === 'CREDITCARD' ? secret + ((luhnDigit(secret) + (item.attempt % 10)) % 10) : tokenOf(item, secret);
}
