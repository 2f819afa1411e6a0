// Run's batch logic without a socket: validation messages, request order, deadlines and giving way.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import { runBatch, BadItemError, StoppedError } from '../../../tokenizer/batch.js';
import type { Batch__Output as BatchRequest, HashItem__Output } from '../../../proto/loader.js';
import { blindIndex } from '../../../tokenizer/blind-index.js';
import { seal } from '../../../tokenizer/aead.js';

const { keyring } = loadKeyring({ dataDir: mkdtempSync(join(tmpdir(), 'sr-')), wrappingKey: randomBytes(32) }, () => {});
const keys = new Subkeys(keyring);
const empty: BatchRequest = { tenant_id: 1, hash: [], seal: [], open: [], tokenize: [], detokenize: [], new_key_subjects: [], rewrap_keys: [],
    chain: [], queue_mac: [], tenant_salt: Buffer.alloc(0), kek_label: '', kek_wrapped: Buffer.alloc(0) };
const tenantKey = { wrapped_key: Buffer.alloc(0), subject: '' };
const sealItem = (i: number) => ({ table: 'users', row_id: `r${i}`, plaintext: Buffer.from(`p${i}`), ...tenantKey });

describe('runBatch', () => {
  it('returns every result in request order', async () => {
    const sealed = [0, 1, 2].map((i) => seal(keys, 1, { tenantId: 4, table: 'users', rowId: `r${i}` }, Buffer.from(`p${i}`)));
    const res = await runBatch(keys, keyring.active, {
      ...empty,
      tenant_id: 4,
      hash: [
        { kind: 'EMAIL', value: 'b@x.io' },
        { kind: 'LOGIN', value: 'a' },
      ],
      seal: [0, 1, 2].map(sealItem),
      open: [2, 0, 1].map((i) => ({ table: 'users', row_id: `r${i}`, ciphertext: sealed[i]!, ...tenantKey })),
    });
    expect(res.hash[0]!.equals(blindIndex(keys, 4, 'EMAIL', 'b@x.io'))).toBe(true);
    expect(res.hash[1]!.equals(blindIndex(keys, 4, 'LOGIN', 'a'))).toBe(true);
    expect(res.sealed).toHaveLength(3);
    expect(res.opened.map(String)).toEqual(['p2', 'p0', 'p1']);
  });

  it.each<[string, Partial<BatchRequest>, string]>([
    ['tenant 0', { tenant_id: 0 }, 'tenant_id must be 1 or more'],
    ['unspecified kind', { hash: [{ kind: 'LOGIN', value: 'x' }, { kind: 'INDEX_KIND_UNSPECIFIED', value: 'x' }] }, 'hash[1].kind is not a known index kind'],
    // grpc hands over an enum number this proto does not know as that number.
    ['unknown enum number', { hash: [{ kind: 42 as unknown as HashItem__Output['kind'], value: 'x' }] }, 'hash[0].kind is not a known index kind'],
    ['empty row id', { seal: [0, 1, 2, 3].map((i) => ({ ...sealItem(i), row_id: i === 3 ? '' : `r${i}` })) }, 'seal[3].row_id is empty'],
    ['empty table', { open: [{ table: '', row_id: 'r', ciphertext: Buffer.alloc(40), ...tenantKey }] }, 'open[0].table is empty'],
    ['long table', { seal: [{ ...sealItem(0), table: 't'.repeat(257) }] }, 'seal[0].table is longer than 256 characters'],
    ['junk ciphertext', { open: [{ table: 'users', row_id: 'r', ciphertext: Buffer.from('junk'), ...tenantKey }] }, 'open[0]: not a sealed record'],
  ])('names the bad item: %s', async (_, override, message) => {
    const err = await runBatch(keys, keyring.active, { ...empty, ...override }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadItemError);
    expect((err as Error).message).toBe(message);
  });

  it('accepts names of exactly 256 characters', async () => {
    const res = await runBatch(keys, keyring.active, { ...empty, seal: [{ ...sealItem(0), table: 't'.repeat(256), row_id: 'r'.repeat(256) }] });
    expect(res.sealed).toHaveLength(1);
  });

  it('says which ciphertext does not open', async () => {
    const good = seal(keys, 1, { tenantId: 1, table: 'users', rowId: 'r0' }, Buffer.from('x'));
    const open = [0, 1, 2].map((i) => ({ table: 'users', row_id: i === 2 ? 'moved' : 'r0', ciphertext: good, ...tenantKey }));
    await expect(runBatch(keys, keyring.active, { ...empty, open })).rejects.toThrow(new BadItemError('open[2]: ciphertext does not open'));
  });

  it('validates the whole batch before any cryptography', async () => {
    let derived = 0;
    const counting = { derive: (...a: Parameters<Subkeys['derive']>) => (derived++, keys.derive(...a)) } as Subkeys;
    const seals = Array.from({ length: 50 }, (_, i) => ({ ...sealItem(i), row_id: i === 49 ? '' : `r${i}` }));
    await expect(runBatch(counting, 1, { ...empty, hash: [{ kind: 'LOGIN', value: 'a' }], seal: seals })).rejects.toThrow('seal[49].row_id is empty');
    expect(derived).toBe(0);
  });

  it('stops at the deadline or on cancellation instead of finishing the batch', async () => {
    const hash = Array.from({ length: 300_000 }, (_, i) => ({ kind: 'EMAIL' as const, value: `user${i}@example.com` }));
    await expect(runBatch(keys, 1, { ...empty, hash }, { deadline: Date.now() - 1 })).rejects.toThrow(new StoppedError('deadline'));
    await expect(runBatch(keys, 1, { ...empty, hash }, { cancelled: () => true })).rejects.toThrow(new StoppedError('cancelled'));
    const started = Date.now();
    const err = await runBatch(keys, 1, { ...empty, hash }, { deadline: started + 30 }).catch((e: unknown) => e);
    expect(err).toEqual(new StoppedError('deadline'));
  });

  it('gives way to the event loop during a long batch', async () => {
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 0);
    const hash = Array.from({ length: 50_000 }, (_, i) => ({ kind: 'LOGIN' as const, value: `user${i}` }));
    await runBatch(keys, 1, { ...empty, hash });
    order.push('batch');
    expect(order).toEqual(['timer', 'batch']);
  });
});
