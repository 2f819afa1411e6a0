// Data keys of a tenant with its own KEK: wrapped under its tenant key (0x04), opened only with that tenant key, for
// that tenant and person; a batch that names a KEK it cannot open fails as a whole, and keys wrapped under the
// keyring before a tenant's move still open and move under the tenant key.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import { runBatch } from '../../../tokenizer/batch.js';
import { newWrappedKey, rewrapAny, TENANT_WRAP_FORMAT, TenantKeyUnavailableError, unwrapAny, wrapUnderTenantKey } from '../../../tokenizer/tenant-wrap.js';
import type { Batch__Output as BatchRequest } from '../../../proto/loader.js';

const { keyring } = loadKeyring({ dataDir: mkdtempSync(join(tmpdir(), 'sr-')), wrappingKey: randomBytes(32) }, () => {});
const keys = new Subkeys(keyring);
const tenantKey = randomBytes(32);
const wrap = { keys, version: keyring.active, tenantId: 4, tenantKey };
const empty: BatchRequest = { tenant_id: 4, hash: [], seal: [], open: [], tokenize: [], detokenize: [], new_key_subjects: [], rewrap_keys: [],
    chain: [], queue_mac: [], tenant_salt: Buffer.alloc(0), kek_label: '', kek_wrapped: Buffer.alloc(0) };

describe('data keys under a tenant key', () => {
  it('round-trip for any person, and open for no other person, tenant or tenant key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uuid(), fc.uuid(), (bytes, subject, other) => {
        const key = Buffer.from(bytes);
        const wrapped = wrapUnderTenantKey(tenantKey, 4, subject, key);
        expect(wrapped[0]).toBe(TENANT_WRAP_FORMAT);
        // The master-version field reads 0: the key table's key_version of such a key.
        expect(wrapped.readUInt32BE(1)).toBe(0);
        expect(unwrapAny(wrap, subject, wrapped).equals(key)).toBe(true);
        if (other !== subject) expect(() => unwrapAny(wrap, other, wrapped)).toThrow();
        expect(() => unwrapAny({ ...wrap, tenantId: 5 }, subject, wrapped)).toThrow();
        expect(() => unwrapAny({ ...wrap, tenantKey: randomBytes(32) }, subject, wrapped)).toThrow();
        expect(() => unwrapAny({ ...wrap, tenantKey: undefined }, subject, wrapped)).toThrow(TenantKeyUnavailableError);
      }),
      { numRuns: 200 },
    );
  });

  it('moves a key wrapped under the keyring under the tenant key, the data key unchanged', () => {
    const subject = randomUUID();
    const before = newWrappedKey({ ...wrap, tenantKey: undefined }, subject);
    const moved = rewrapAny(wrap, subject, before.wrapped);
    expect(moved[0]).toBe(TENANT_WRAP_FORMAT);
    expect(unwrapAny(wrap, subject, moved).equals(before.key)).toBe(true);
  });

  it('fails a whole batch that needs a data key when the tenant key cannot be had, and serves hashes without it', async () => {
    const gone = () => {
      throw new TenantKeyUnavailableError('revoked');
    };
    const withKek = { ...empty, kek_label: 'kek-4', kek_wrapped: randomBytes(60) };
    await expect(runBatch(keys, keyring.active, { ...withKek, new_key_subjects: [randomUUID()] }, {}, { tenantKey: gone })).rejects.toThrow(TenantKeyUnavailableError);
    const hashed = await runBatch(keys, keyring.active, { ...withKek, hash: [{ kind: 'EMAIL', value: 'a@b.example' }] }, {}, { tenantKey: gone });
    expect(hashed.hash).toHaveLength(1);
    const made = await runBatch(keys, keyring.active, { ...withKek, new_key_subjects: ['s1'] }, {}, { tenantKey: () => tenantKey });
    expect(made.wrapped_keys[0]![0]).toBe(TENANT_WRAP_FORMAT);
    // Without the KEK in the batch, a key under the tenant key does not open: refused as the tenant's, not as bad input.
    await expect(runBatch(keys, keyring.active, { ...empty, rewrap_keys: [{ subject: 's1', wrapped_key: made.wrapped_keys[0]! }] })).rejects.toThrow(TenantKeyUnavailableError);
  });
});
