// The legacy upgrade: a value sealed as 11833ee sealed it (0x01, the tenant's unsalted record key, AAD from its old
// table and row) comes back sealed under a person's data key with today's AAD, and opens there, and only there.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import { seal } from '../../../tokenizer/aead.js';
import { openPersonal, unwrapDataKey } from '../../../tokenizer/envelope.js';
import { resealLegacy } from '../../../tokenizer/legacy.js';
import { BadItemError } from '../../../tokenizer/batch.js';
import type { ResealLegacyRequest__Output } from '../../../proto/loader.js';

const { keyring } = loadKeyring({ dataDir: mkdtempSync(join(tmpdir(), 'sr-')), wrappingKey: randomBytes(32) }, () => {});
const keys = new Subkeys(keyring);
const none = Buffer.alloc(0);
const person = '6f1c1f4e-7d1a-4c3e-9a55-0a4f2d1b9c10';

function request(plaintext: Buffer, over: Partial<ResealLegacyRequest__Output['items'][number]> = {}, tenant = 4): ResealLegacyRequest__Output {
  const legacy = seal(keys, keyring.active, { tenantId: tenant, table: 'users', rowId: person }, plaintext);
  return {
    tenant_id: tenant,
    tenant_salt: none,
    new_key_subjects: [person],
    items: [{ from_table: 'users', from_row_id: person, ciphertext: legacy, table: 'users', row_id: `${person}/v1`, subject: person, wrapped_key: none, ...over }],
  };
}

describe('resealLegacy', () => {
  it('reseals any legacy value under a new person key that opens it with the new AAD only', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        const plaintext = Buffer.from(bytes);
        const res = resealLegacy(keys, keyring.active, request(plaintext));
        const key = unwrapDataKey(keys, 4, person, res.wrapped_keys[0]!);
        expect(openPersonal(key, { tenantId: 4, table: 'users', rowId: `${person}/v1`, subject: person }, res.resealed[0]!)).toEqual(plaintext);
        expect(() => openPersonal(key, { tenantId: 4, table: 'users', rowId: `${person}/v2`, subject: person }, res.resealed[0]!)).toThrow();
        expect(() => openPersonal(key, { tenantId: 5, table: 'users', rowId: `${person}/v1`, subject: person }, res.resealed[0]!)).toThrow();
      }),
      { numRuns: 50 },
    );
  });

  it('uses a key wrapped earlier, and refuses a legacy value under another AAD or tenant', () => {
    const first = resealLegacy(keys, keyring.active, request(Buffer.from('a')));
    const again = resealLegacy(keys, keyring.active, { ...request(Buffer.from('b')), new_key_subjects: [], items: [{ ...request(Buffer.from('b')).items[0]!, wrapped_key: first.wrapped_keys[0]! }] });
    const key = unwrapDataKey(keys, 4, person, first.wrapped_keys[0]!);
    expect(openPersonal(key, { tenantId: 4, table: 'users', rowId: `${person}/v1`, subject: person }, again.resealed[0]!).toString()).toBe('b');
    expect(() => resealLegacy(keys, keyring.active, request(Buffer.from('x'), { from_row_id: 'another' }))).toThrow(/items\[0\]: the legacy value does not open/);
    const other = request(Buffer.from('x'));
    expect(() => resealLegacy(keys, keyring.active, { ...other, tenant_id: 5 })).toThrow(BadItemError);
  });

  it('refuses a subject without a key, and a value already in the personal format', () => {
    expect(() => resealLegacy(keys, keyring.active, { ...request(Buffer.from('x')), new_key_subjects: [] })).toThrow(/names a subject without its key/);
    const done = resealLegacy(keys, keyring.active, request(Buffer.from('x')));
    expect(() => resealLegacy(keys, keyring.active, request(Buffer.from('x'), { ciphertext: done.resealed[0]! }))).toThrow(/does not open \(malformed\)/);
  });
});
