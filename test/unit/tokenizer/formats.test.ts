// Token formats on FF1: round trips, the shape each format keeps, separation by tenant and attempt, refusals.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import { tokenizeAll, detokenizeAll } from '../../../tokenizer/formats.js';
import { prepareValue, prepareToken, luhnDigit, tokenIndexValue, type TokenFormat } from '../../../proto/token-values.js';
import type { Batch__Output as BatchRequest, TokenizeItem__Output } from '../../../proto/loader.js';
import { runBatch, BadItemError, StoppedError } from '../../../tokenizer/batch.js';
import { blindIndex } from '../../../tokenizer/blind-index.js';

const keysFor = (master: Buffer) => new Subkeys({ key: (version) => (version === 1 ? master : undefined) });
const keys = keysFor(randomBytes(32));
const empty: BatchRequest = { tenant_id: 1, hash: [], seal: [], open: [], tokenize: [], detokenize: [], new_key_subjects: [], rewrap_keys: [],
    chain: [], queue_mac: [], tenant_salt: Buffer.alloc(0), kek_label: '', kek_wrapped: Buffer.alloc(0) };

function tokenize(format: TokenFormat, value: string, attempt = 0, tenant = 1, k = keys) {
  return tokenizeAll(k, tenant, [prepareValue(format, value, attempt)])[0]!;
}

function detokenize(format: TokenFormat, token: string, attempt: number, tenant = 1, k = keys) {
  return detokenizeAll(k, tenant, [prepareToken(format, token, attempt)])[0]!;
}

/** Luhn written out independently of the code under test: double every second digit from the right. */
function luhnValid(digits: string): boolean {
  const sum = [...digits].reverse().reduce((s, c, i) => {
    const d = Number(c) * (i % 2 ? 2 : 1);
    return s + (d > 9 ? d - 9 : d);
  }, 0);
  return sum % 10 === 0;
}

const digitsArb = (min: number, max: number) =>
  fc.integer({ min, max }).chain((len) => fc.array(fc.constantFrom(...'0123456789'), { minLength: len, maxLength: len }).map((ds) => ds.join('')));
/** Any 12 to 19 digits (Luhn-valid or not), as typed: spaces or dashes between some digits. */
const cardArb = digitsArb(12, 19).chain((digits) =>
  fc
    .array(fc.constantFrom('', '', '', ' ', '-'), { minLength: digits.length, maxLength: digits.length })
    .map((seps) => ({ digits, typed: [...digits].map((d, i) => (i ? seps[i] : '') + d).join('') })),
);
const alnum = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
const wordArb = (chars: string[], max: number) => fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: max }).map((cs) => cs.join(''));
const labelArb = fc
  .tuple(fc.constantFrom(...alnum), fc.option(fc.tuple(wordArb([...alnum, '-'], 8), fc.constantFrom(...alnum))))
  .map(([first, rest]) => (rest ? first + rest[0] + rest[1] : first));
/** Dot-atom local parts with all of RFC 5322's specials, LDH labels, mixed case and stray whitespace. */
const emailArb = fc
  .record({
    local: fc.array(wordArb([...alnum, ...alnum, ...alnum, ..."!#$%&'*+/=?^_`{|}~-"], 8), { minLength: 1, maxLength: 3 }).map((ws) => ws.join('.')),
    labels: fc.array(labelArb, { minLength: 1, maxLength: 3 }),
    tld: wordArb([...'abcdefghijklmnopqrstuvwxyz'], 6),
    upper: fc.boolean(),
    pad: fc.constantFrom('', ' ', '\t '),
  })
  .map(({ local, labels, tld, upper, pad }) => {
    const address = `${local}@${labels.join('.')}.${tld}`;
    return pad + (upper ? address.toUpperCase() : address) + pad;
  })
  .filter((typed) => typed.trim().replace(/\.[a-z]+$/i, '').replace(/[^a-z0-9]/gi, '').length >= 4);

describe('CREDITCARD', () => {
  it('checks Luhn digits as the card schemes do', () => {
    expect(luhnDigit('411111111111111')).toBe(1);
    expect(luhnDigit('7992739871')).toBe(3);
    expect(luhnDigit('37828224631000')).toBe(5);
  });

  it('gives a Luhn-valid token of the same length that is never the card, and back', () => {
    fc.assert(
      fc.property(cardArb, fc.nat(1000), ({ digits, typed }, asked) => {
        const { token, attempt } = tokenize('CREDITCARD', typed, asked);
        expect(token).toMatch(new RegExp(`^\\d{${digits.length}}$`));
        expect(luhnValid(token)).toBe(true);
        expect(token).not.toBe(digits);
        expect(attempt).toBeGreaterThanOrEqual(asked);
        expect(detokenize('CREDITCARD', token, attempt)).toBe(digits);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps how far a number is from Luhn-valid in the last digit of its attempt', () => {
    expect(tokenize('CREDITCARD', '4111111111111111').attempt).toBe(0);
    expect(tokenize('CREDITCARD', '4111111111111118').attempt).toBe(7);
    expect(tokenize('CREDITCARD', '4111111111111118', 8).attempt).toBe(17);
    expect(tokenize('CREDITCARD', '4111111111111111', 1).attempt).toBe(10);
    const { token, attempt } = tokenize('CREDITCARD', '4111 1111 1111 1118');
    expect(detokenize('CREDITCARD', token, attempt)).toBe('4111111111111118');
    expect(detokenize('CREDITCARD', token, attempt + 10)).not.toBe('4111111111111118');
  });
});

describe('UNIXTIME', () => {
  it('keeps the digit count, and the leading digit from 10 digits on, and comes back', () => {
    fc.assert(
      fc.property(digitsArb(6, 19), fc.nat(1000), (value, asked) => {
        const { token, attempt } = tokenize('UNIXTIME', value, asked);
        expect(token).toMatch(new RegExp(`^\\d{${value.length}}$`));
        if (value.length >= 10) expect(token[0]).toBe(value[0]);
        expect(token).not.toBe(value);
        expect(detokenize('UNIXTIME', token, attempt)).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it('turns a time of this century into another one', () => {
    const { token } = tokenize('UNIXTIME', '1767225600');
    expect(Number(token)).toBeGreaterThanOrEqual(1_000_000_000);
    expect(Number(token)).toBeLessThan(2_000_000_000);
  });
});

describe('EMAIL', () => {
  it('keeps the shape: punctuation, @ and top-level domain in place, letters and digits for the rest; and comes back lowercased', () => {
    fc.assert(
      fc.property(emailArb, fc.nat(1000), (typed, asked) => {
        const address = typed.trim().toLowerCase();
        const { token, attempt } = tokenize('EMAIL', typed, asked);
        const tld = address.lastIndexOf('.');
        expect(token).toHaveLength(address.length);
        expect(token.slice(tld)).toBe(address.slice(tld));
        [...address.slice(0, tld)].forEach((c, i) => {
          if (/[a-z0-9]/.test(c)) expect(token[i]).toMatch(/[a-z0-9]/);
          else expect(token[i]).toBe(c);
        });
        expect(() => prepareToken('EMAIL', token, attempt)).not.toThrow();
        expect(detokenize('EMAIL', token, attempt)).toBe(address);
      }),
      { numRuns: 500 },
    );
  });

  it('encrypts the domain labels but the top-level one', () => {
    const { token } = tokenize('EMAIL', 'Alice.Smith@Example.COM');
    expect(token).toMatch(/^[a-z0-9]{5}\.[a-z0-9]{5}@[a-z0-9]{7}\.com$/);
  });
});

describe('every format', () => {
  const valueArb = fc.oneof(
    cardArb.map(({ typed }) => ['CREDITCARD', typed] as const),
    digitsArb(10, 19).map((v) => ['UNIXTIME', v] as const),
    emailArb.filter((e) => e.replace(/[^a-z0-9]/gi, '').length >= 10).map((e) => ['EMAIL', e] as const),
  );

  it('gives one value different tokens in different tenants and at different attempts', () => {
    fc.assert(
      fc.property(valueArb, ([format, value]) => {
        const first = tokenize(format, value, 0, 1);
        const otherTenant = tokenize(format, value, 0, 2);
        const nextAttempt = tokenize(format, value, first.attempt + 1, 1);
        expect(otherTenant.token).not.toBe(first.token);
        expect(nextAttempt.attempt).toBeGreaterThan(first.attempt);
        expect(nextAttempt.token).not.toBe(first.token);
        expect(detokenize(format, first.token, first.attempt, 2)).not.toBe(detokenize(format, first.token, first.attempt, 1));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps its tokens across key rotation: the fpe key is master key version 1', () => {
    const { keyring } = loadKeyring({ dataDir: mkdtempSync(join(tmpdir(), 'sr-')), wrappingKey: randomBytes(32) }, () => {});
    const values = [['CREDITCARD', '4111111111111111'], ['UNIXTIME', '1700000000'], ['EMAIL', 'ada@example.com']] as const;
    const before = values.map(([format, value]) => tokenize(format, value, 0, 3, new Subkeys(keyring)));
    keyring.rotate();
    expect(keyring.active).toBe(2);
    const after = values.map(([format, value]) => tokenize(format, value, 0, 3, new Subkeys(keyring)));
    expect(after).toEqual(before);
  });

  it('moves to the next attempt when a value encrypts to itself', () => {
    // Found by encrypting all 10^6 six-digit times for tenant 1 under this master key: '028849' is a fixed point.
    const fixed = keysFor(Buffer.alloc(32, 1));
    expect(detokenize('UNIXTIME', '028849', 0, 1, fixed)).toBe('028849');
    const { token, attempt } = tokenize('UNIXTIME', '028849', 0, 1, fixed);
    expect(attempt).toBe(1);
    expect(token).not.toBe('028849');
    expect(detokenize('UNIXTIME', token, 1, 1, fixed)).toBe('028849');
  });
});

describe('tokenize and detokenize in runBatch', () => {
  it('answers in request order across formats and lockstep chunks, as one by one would', async () => {
    const values = fc.sample(fc.oneof(cardArb.map((c) => ['CREDITCARD', c.typed] as const), digitsArb(6, 19).map((v) => ['UNIXTIME', v] as const), emailArb.map((e) => ['EMAIL', e] as const)), 1300);
    const tokenizeItems = values.map(([format, value], i) => ({ format, value, attempt: i % 3 }));
    const res = await runBatch(keys, 1, { ...empty, tenant_id: 4, tokenize: tokenizeItems });
    expect(res.tokens.map(({ token, attempt }) => ({ token, attempt }))).toEqual(values.map(([format, value], i) => tokenize(format, value, i % 3, 4)));
    // Each token comes with its lookup hash, the one a DEDUPE hash item of its index value gives.
    res.tokens.forEach((t) => expect(t.index.equals(blindIndex(keys, 4, 'DEDUPE', tokenIndexValue(t.token)))).toBe(true));
    const back = await runBatch(keys, 1, { ...empty, tenant_id: 4, detokenize: res.tokens.map((t, i) => ({ format: values[i]![0], token: t.token, attempt: t.attempt })) });
    expect(back.detokenized).toEqual(values.map(([format, value]) => (format === 'CREDITCARD' ? value.replace(/[\s-]/g, '') : format === 'EMAIL' ? value.trim().toLowerCase() : value)));
  });

  const card = (value: string, attempt = 0): Partial<BatchRequest> => ({
    tokenize: [
      { format: 'CREDITCARD', value: '4111111111111111', attempt: 0 },
      { format: 'CREDITCARD', value, attempt },
    ],
  });
  // Any name or number: grpc hands over an enum number this proto does not know as that number.
  const item = (format: string | number, value: string, attempt = 0): Partial<BatchRequest> => ({
    tokenize: [{ format: format as TokenizeItem__Output['format'], value, attempt }],
  });
  it.each<[string, Partial<BatchRequest>, string]>([
    ['short card', card('4111-1111'), 'tokenize[1].value is not a card number: it needs 12 to 19 digits once spaces and dashes are removed'],
    ['long card', card('41111111111111111111'), 'tokenize[1].value is not a card number: it needs 12 to 19 digits once spaces and dashes are removed'],
    ['card with a letter', card('4111 1111 1111 111x'), 'tokenize[1].value is not a card number: it needs 12 to 19 digits once spaces and dashes are removed'],
    ['card past the last attempt', card('4111111111111112', 2 ** 32 - 1), 'tokenize[1].value leaves no card attempt up to 4294967295: ask a lower one'],
    ['short time', item('UNIXTIME', '12345'), 'tokenize[0].value is not a Unix time: it needs 6 to 19 decimal digits'],
    ['negative time', item('UNIXTIME', '-1700000000'), 'tokenize[0].value is not a Unix time: it needs 6 to 19 decimal digits'],
    ['fractional time', item('UNIXTIME', '1700000000.5'), 'tokenize[0].value is not a Unix time: it needs 6 to 19 decimal digits'],
    ['no @', item('EMAIL', 'not-an-address'), 'tokenize[0].value is not an email address: it needs the form local@domain.tld'],
    ['two @', item('EMAIL', 'a@b@example.com'), 'tokenize[0].value is not an email address: it needs the form local@domain.tld'],
    ['double dot', item('EMAIL', 'ada..l@example.com'), "tokenize[0].value is not an email address: its local part needs letters, digits and !#$%&'*+/=?^_`{|}~- between single dots"],
    ['non-ASCII', item('EMAIL', 'josé@example.com'), "tokenize[0].value is not an email address: its local part needs letters, digits and !#$%&'*+/=?^_`{|}~- between single dots"],
    ['no top-level domain', item('EMAIL', 'ada@localhost'), 'tokenize[0].value is not an email address: its domain needs labels of letters, digits and inner hyphens, and a top-level domain'],
    ['hyphen first in a label', item('EMAIL', 'ada@-example.com'), 'tokenize[0].value is not an email address: its domain needs labels of letters, digits and inner hyphens, and a top-level domain'],
    ['long local part', item('EMAIL', `${'a'.repeat(65)}@example.com`), 'tokenize[0].value is not an email address: its local part is longer than 64 characters'],
    ['long address', item('EMAIL', `ada@${'a'.repeat(250)}.com`), 'tokenize[0].value is not an email address: it is longer than 254 characters'],
    ['too few letters', item('EMAIL', 'a@b.io'), 'tokenize[0].value is too short to tokenize: it needs 4 letters or digits outside the top-level domain'],
    ['unspecified format', item('TOKEN_FORMAT_UNSPECIFIED', '1700000000'), 'tokenize[0].format is not a known token format'],
    ['unknown enum number', item(9, '1700000000'), 'tokenize[0].format is not a known token format'],
    ['negative attempt', item('UNIXTIME', '1700000000', -1), 'tokenize[0].attempt must be an integer from 0 to 4294967295'],
    ['attempt past uint32', item('UNIXTIME', '1700000000', 2 ** 32), 'tokenize[0].attempt must be an integer from 0 to 4294967295'],
    ['card token failing Luhn', { detokenize: [{ format: 'CREDITCARD', token: '4111111111111112', attempt: 0 }] }, 'detokenize[0].token is not a card token: it fails the Luhn check'],
    ['short time token', { detokenize: [{ format: 'UNIXTIME', token: '99', attempt: 0 }] }, 'detokenize[0].token is not a Unix time: it needs 6 to 19 decimal digits'],
  ])('refuses, naming the item and never its value: %s', async (_, override, message) => {
    const err = await runBatch(keys, 1, { ...empty, ...override }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadItemError);
    expect((err as Error).message).toBe(message);
  });

  it('gives way to the event loop during a long token batch, and stops when cancelled', async () => {
    const tokenizeItems = Array.from({ length: 200_000 }, (_, i) => ({ format: 'UNIXTIME' as const, value: String(1_700_000_000 + i), attempt: 0 }));
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    // Cancelled only once the timer has run, which it can only do while the batch gives way.
    const err = await runBatch(keys, 1, { ...empty, tokenize: tokenizeItems }, { cancelled: () => timerRan }).catch((e: unknown) => e);
    expect(err).toEqual(new StoppedError('cancelled'));
  });

  it('refuses a bad last token item before any cryptography', async () => {
    let derived = 0;
    const counting = { derive: (...a: Parameters<Subkeys['derive']>) => (derived++, keys.derive(...a)) } as Subkeys;
    const tokenizeItems = Array.from({ length: 50 }, (_, i) => ({ format: 'UNIXTIME' as const, value: i === 49 ? '1' : '1700000000', attempt: 0 }));
    await expect(runBatch(counting, 1, { ...empty, hash: [{ kind: 'LOGIN', value: 'a' }], tokenize: tokenizeItems })).rejects.toThrow('tokenize[49].value');
    expect(derived).toBe(0);
  });
});
