// Per-person keys through Run: a key made and used in one call, opened only with its wrapped key, bound to
// its person, row and tenant, and rewrapped under a new master version without changing the data key.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import { runBatch, BadItemError } from '../../../tokenizer/batch.js';
import type { Batch__Output as BatchRequest } from '../../../proto/loader.js';

const { keyring } = loadKeyring({ dataDir: mkdtempSync(join(tmpdir(), 'sr-')), wrappingKey: randomBytes(32) }, () => {});
const keys = new Subkeys(keyring);
const empty: BatchRequest = { tenant_id: 3, hash: [], seal: [], open: [], tokenize: [], detokenize: [], new_key_subjects: [], rewrap_keys: [],
    chain: [], queue_mac: [], tenant_salt: Buffer.alloc(0), kek_label: '', kek_wrapped: Buffer.alloc(0) };
const none = Buffer.alloc(0);

async function made(subject: string, rowId = 'r1') {
  const res = await runBatch(keys, keyring.active, {
    ...empty,
    new_key_subjects: [subject],
    seal: [{ table: 'users', row_id: rowId, plaintext: Buffer.from('secret'), wrapped_key: none, subject }],
  });
  return { wrapped: res.wrapped_keys[0]!, sealed: res.sealed[0]! };
}

const openOne = (item: Partial<BatchRequest['open'][number]>, tenant = 3) =>
  runBatch(keys, keyring.active, { ...empty, tenant_id: tenant, open: [{ table: 'users', row_id: 'r1', ciphertext: none, wrapped_key: none, subject: '', ...item }] });

describe('per-person keys', () => {
  it('seals under a key made in the same call and opens with the wrapped key only', async () => {
    const { wrapped, sealed } = await made('p1');
    expect(wrapped.includes(Buffer.from('secret'))).toBe(false);
    const res = await openOne({ ciphertext: sealed, wrapped_key: wrapped, subject: 'p1' });
    expect(res.opened[0]!.toString()).toBe('secret');
    // Without the wrapped key, as a tenant-key record, it does not open.
    await expect(openOne({ ciphertext: sealed })).rejects.toThrow(BadItemError);
  });

  it('does not open for another person, row, table or tenant, nor with another person\'s key', async () => {
    const a = await made('pa');
    const b = await made('pb');
    await expect(openOne({ ciphertext: a.sealed, wrapped_key: a.wrapped, subject: 'pb' })).rejects.toThrow('wrapped key does not unwrap');
    await expect(openOne({ ciphertext: a.sealed, wrapped_key: b.wrapped, subject: 'pb' })).rejects.toThrow('ciphertext does not open');
    await expect(openOne({ ciphertext: a.sealed, wrapped_key: a.wrapped, subject: 'pa', row_id: 'r2' })).rejects.toThrow('ciphertext does not open');
    await expect(openOne({ ciphertext: a.sealed, wrapped_key: a.wrapped, subject: 'pa', table: 'app_records' })).rejects.toThrow('ciphertext does not open');
    await expect(openOne({ ciphertext: a.sealed, wrapped_key: a.wrapped, subject: 'pa' }, 4)).rejects.toThrow('wrapped key does not unwrap');
  });

  it('refuses a personal item without its key', async () => {
    await expect(
      runBatch(keys, keyring.active, { ...empty, seal: [{ table: 'users', row_id: 'r', plaintext: Buffer.from('x'), wrapped_key: none, subject: 'nobody' }] }),
    ).rejects.toThrow('seal[0] names a subject without its key');
    await expect(openOne({ ciphertext: Buffer.alloc(40), subject: 'p' })).rejects.toThrow('open[0] names a subject without its key');
  });

  it('rewraps a key under the active version; the data still opens with either wrapping', async () => {
    const { wrapped, sealed } = await made('pr');
    keyring.rotate();
    const res = await runBatch(keys, keyring.active, { ...empty, rewrap_keys: [{ subject: 'pr', wrapped_key: wrapped }] });
    const rewrapped = res.rewrapped_keys[0]!;
    expect(rewrapped.readUInt32BE(1)).toBe(keyring.active);
    expect(wrapped.readUInt32BE(1)).toBe(keyring.active - 1);
    for (const w of [wrapped, rewrapped]) {
      expect((await openOne({ ciphertext: sealed, wrapped_key: w, subject: 'pr' })).opened[0]!.toString()).toBe('secret');
    }
  });

  it('counts tenant-key seals and key wraps per master version', async () => {
    const counted: [number, number][] = [];
    await runBatch(
      keys,
      keyring.active,
      { ...empty, new_key_subjects: ['c1', 'c2'], seal: [{ table: 't', row_id: 'r', plaintext: Buffer.from('x'), wrapped_key: none, subject: '' }] },
      {},
      { countSeals: (v, n) => counted.push([v, n]) },
    );
    expect(counted).toEqual([[keyring.active, 3]]);
  });
});

describe('tenant key salts', () => {
  it('give a tenant other keys than the same id with another salt, or with none', () => {
    const [a, b] = [randomBytes(16), randomBytes(16)];
    const ka = keys.withSalt(a).derive(1, 7, 'record')!;
    expect(keys.withSalt(a).derive(1, 7, 'record')!.equals(ka)).toBe(true);
    expect(keys.withSalt(b).derive(1, 7, 'record')!.equals(ka)).toBe(false);
    expect(keys.derive(1, 7, 'record')!.equals(ka)).toBe(false);
    expect(keys.withSalt(Buffer.alloc(0))).toBe(keys);
  });
});

describe('retiring a master key version', () => {
  it('removes it from the keyring and from derived keys, and refuses the active one', () => {
    const { keyring: ring } = loadKeyring({ dataDir: mkdtempSync(join(tmpdir(), 'sr-')), wrappingKey: randomBytes(32) }, () => {});
    const sub = new Subkeys(ring);
    const v2 = ring.rotate();
    ring.rotate();
    expect(sub.withSalt(randomBytes(16)).derive(v2, 1, 'wrap')).toBeDefined();
    expect(() => ring.retire(ring.active)).toThrow('the active version cannot be retired');
    ring.retire(v2);
    sub.forget(v2);
    expect(ring.versions).toEqual([1, 3]);
    expect(sub.derive(v2, 1, 'wrap')).toBeUndefined();
    expect(() => ring.retire(v2)).toThrow(`no master key version ${v2}`);
  });
});
