// Blind indexes: normalisation per kind, separation between kinds and tenants, stability across rotation.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import { blindIndex, normalise, INDEX_KINDS, type IndexKind } from '../../../tokenizer/blind-index.js';

function freshKeys() {
  const { keyring } = loadKeyring({ dataDir: mkdtempSync(join(tmpdir(), 'sr-')), wrappingKey: randomBytes(32) }, () => {});
  return { keyring, keys: new Subkeys(keyring) };
}

describe('normalisation', () => {
  it.each([
    ['EMAIL', '  Ada%40Example.COM ', 'ada@example.com'],
    ['EMAIL', 'ADA@EXAMPLE.COM', 'ada@example.com'],
    ['EMAIL', '%20ada@example.com%20', 'ada@example.com'],
    ['EMAIL', 'bad%zz@x.io', 'bad%zz@x.io'],
    ['EMAIL', '100%@X.io', '100%@x.io'],
    ['EMAIL', 'double%2540x.io', 'double@x.io'],
    ['EMAIL', 'Four%25252540x.io', 'four@x.io'],
    ['EMAIL', 'Five%2525252540x.io', 'five%2525252540x.io'],
    ['PHONE', '07700 900123', '+447700900123'],
    ['PHONE', '+44 (0) 7700 900123', '+447700900123'],
    ['PHONE', '00447700900123', '+447700900123'],
    ['PHONE', '(020) 7946-0018', '+442079460018'],
    ['PHONE', '+1 (415) 555-2671', '+14155552671'],
    ['PHONE', '+33 6 12 34 56 78', '+33612345678'],
    ['PHONE', '4444', '4444'],
    ['PHONE', ' 48-213 ', '48213'],
    ['PHONE', '(12) 3-4', '1234'],
    ['PHONE', 'not a phone', 'notaphone'],
    ['LOGIN', '  Ada ', 'Ada'],
    ['CUSTOM', ' ext-1 ', 'ext-1'],
    ['DEDUPE', ' as is ', ' as is '],
  ] as const)('%s %j → %j', (kind, input, expected) => {
    expect(normalise(kind, input)).toBe(expected);
  });

  // Biased towards what normalisation acts on: escapes, case, blanks and phone punctuation.
  const tricky = fc
    .array(fc.constantFrom('%', '2', '5', '4', '0', 'A', 'f', 'g', 'Z', ' ', '\t', '+', '-', '(', ')', '7', '9', '@', 'É', '€', '%E2%82%AC', '%C3%89', '%25', '%2525', '%41', '%20'), { maxLength: 30 })
    .map((parts) => parts.join(''));

  it('is idempotent for every kind', () => {
    fc.assert(
      fc.property(fc.constantFrom(...INDEX_KINDS), fc.oneof(tricky, fc.string({ unit: 'grapheme' })), (kind, s) => {
        const once = normalise(kind, s);
        expect(normalise(kind, once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives every format of one phone number the same E.164 form', () => {
    fc.assert(
      fc.property(fc.constantFrom('07700 900123', '+447700900123', '+44 7700 900 123', '0044 (0)7700-900123', ' 07700-900-123 '), (s) => {
        expect(normalise('PHONE', s)).toBe('+447700900123');
      }),
    );
  });
});

describe('blind index', () => {
  const { keys } = freshKeys();

  it('is a 32-byte HMAC of the normalised value, empty when nothing is left', () => {
    const a = blindIndex(keys, 1, 'EMAIL', 'ADA@example.com');
    expect(a).toHaveLength(32);
    expect(blindIndex(keys, 1, 'EMAIL', ' ada%40example.com').equals(a)).toBe(true);
    expect(blindIndex(keys, 1, 'EMAIL', 'eve@example.com').equals(a)).toBe(false);
    for (const kind of ['EMAIL', 'PHONE', 'LOGIN', 'CUSTOM'] as const) expect(blindIndex(keys, 1, kind, ' \t ')).toHaveLength(0);
    expect(blindIndex(keys, 1, 'DEDUPE', '')).toHaveLength(0);
    expect(blindIndex(keys, 1, 'DEDUPE', ' ')).toHaveLength(32);
  });

  it('separates kinds: one string under five kinds gives five hashes', () => {
    const hashes = INDEX_KINDS.map((kind: IndexKind) => blindIndex(keys, 1, kind, '12345').toString('hex'));
    expect(INDEX_KINDS.map((k) => normalise(k, '12345'))).toEqual(Array(5).fill('12345'));
    expect(new Set(hashes).size).toBe(5);
  });

  it('differs per tenant and per keyring', () => {
    const a = blindIndex(keys, 1, 'LOGIN', 'ada');
    expect(blindIndex(keys, 2, 'LOGIN', 'ada').equals(a)).toBe(false);
    expect(blindIndex(freshKeys().keys, 1, 'LOGIN', 'ada').equals(a)).toBe(false);
  });

  it('stays the same after key rotation, so stored indexes keep finding their rows', () => {
    const { keyring, keys: k } = freshKeys();
    const before = INDEX_KINDS.map((kind) => blindIndex(k, 3, kind, '+447700900123'));
    keyring.rotate();
    keyring.rotate();
    const fresh = new Subkeys(keyring);
    INDEX_KINDS.forEach((kind, i) => expect(blindIndex(fresh, 3, kind, '+447700900123').equals(before[i]!)).toBe(true));
  });
});
