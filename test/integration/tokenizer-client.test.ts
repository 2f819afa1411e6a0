// The api's tokenizer client against the real tokenizer process: merged calls give each caller its own answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTokenizer, shortTempDir, type SpawnedTokenizer } from '../fixtures/tokenizer.js';
import { TokenizerClient, TokenizerRejectedError } from '../../api/tokenizer-client.js';

let tokenizer: SpawnedTokenizer;
let client: TokenizerClient;

beforeAll(async () => {
  tokenizer = await spawnTokenizer({ dataDir: shortTempDir() });
  client = new TokenizerClient(tokenizer.target, 5_000);
});

afterAll(async () => {
  client?.close();
  await tokenizer?.stop();
});

const sealOne = async (tenant: number, rowId: string, text: string) =>
  (await client.run(tenant, { seal: [{ table: 'users', rowId, plaintext: Buffer.from(text) }] })).sealed[0]!;

describe('TokenizerClient', () => {
  it('answers concurrent small calls of several tenants each with its own results, in order', async () => {
    const sealed = await Promise.all(Array.from({ length: 40 }, (_, i) => sealOne(1 + (i % 3), `row-${i}`, `profile ${i}`)));
    const opened = await Promise.all(
      sealed.map((ciphertext, i) => client.run(1 + (i % 3), { open: [{ table: 'users', rowId: `row-${i}`, ciphertext }] })),
    );
    expect(opened.map((r) => r.opened[0]!.toString())).toEqual(sealed.map((_, i) => `profile ${i}`));
    const hashes = await Promise.all([
      client.run(1, { hash: [{ kind: 'EMAIL', value: 'A@Example.com' }] }),
      client.run(1, { hash: [{ kind: 'EMAIL', value: 'a@example.com' }, { kind: 'LOGIN', value: 'alice' }] }),
      client.run(2, { hash: [{ kind: 'EMAIL', value: 'a@example.com' }] }),
    ]);
    expect(hashes.map((r) => r.hash.length)).toEqual([1, 2, 1]);
    expect(hashes[0]!.hash[0]!.equals(hashes[1]!.hash[0]!)).toBe(true);
    expect(hashes[1]!.hash[0]!.equals(hashes[2]!.hash[0]!)).toBe(false);
  });

  it('fails only the caller whose item the tokenizer refuses, not the calls merged with it', async () => {
    const good = await sealOne(1, 'good', 'fine');
    const tampered = Buffer.from(await sealOne(1, 'bad', 'broken'));
    tampered[tampered.length - 1]! ^= 1;
    const outcomes = await Promise.allSettled([
      client.run(1, { open: [{ table: 'users', rowId: 'good', ciphertext: good }] }),
      client.run(1, { open: [{ table: 'users', rowId: 'bad', ciphertext: tampered }] }),
      client.run(1, { open: [{ table: 'users', rowId: 'other-row', ciphertext: good }] }),
      client.run(1, { hash: [{ kind: 'LOGIN', value: 'bob' }] }),
    ]);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled' });
    expect((outcomes[0] as PromiseFulfilledResult<{ opened: Buffer[] }>).value.opened[0]!.toString()).toBe('fine');
    expect(outcomes[1]).toMatchObject({ status: 'rejected' });
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(TokenizerRejectedError);
    // A ciphertext moved to another row is refused too: the row is in the AAD.
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(TokenizerRejectedError);
    expect(outcomes[3]).toMatchObject({ status: 'fulfilled' });
  });

  it('links audit events through Run exactly as ChainAudit does, merged with other callers\' items', async () => {
    const texts = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `["${tag}-${i}"]`);
    const previous = Buffer.alloc(32, 7);
    const direct = await client.chainAudit(1, previous, 41, texts(5, 'a'));
    // Two chain runs and an open in the same turn: one merged Run, each caller its own links.
    const sealed = await sealOne(1, 'with-chain', 'rides along');
    const [viaRun, other, opened] = await Promise.all([
      client.chainInRun(1, previous, 41, texts(5, 'a')),
      client.chainInRun(1, Buffer.alloc(0), 1, texts(3, 'b')),
      client.run(1, { open: [{ table: 'users', rowId: 'with-chain', ciphertext: sealed }] }),
    ]);
    expect(viaRun.map((l) => l.toString('hex'))).toEqual(direct.map((l) => l.toString('hex')));
    expect(other).toEqual(await client.chainAudit(1, Buffer.alloc(0), 1, texts(3, 'b')));
    expect(opened.opened[0]!.toString()).toBe('rides along');
    // Another tenant's key links differently; a bad item is refused for its caller alone.
    expect((await client.chainInRun(2, previous, 41, texts(5, 'a')))[0]!.equals(direct[0]!)).toBe(false);
    const outcomes = await Promise.allSettled([client.chainInRun(1, Buffer.alloc(5), 1, ['x']), client.chainInRun(1, previous, 41, texts(5, 'a'))]);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(TokenizerRejectedError);
    expect(outcomes[1]).toMatchObject({ status: 'fulfilled' });
  });

  it('sends a large batch on its own and keeps its order', async () => {
    const seal = Array.from({ length: 300 }, (_, i) => ({ table: 'users', rowId: `r${i}`, plaintext: Buffer.from(`p${i}`) }));
    const [big, small] = await Promise.all([client.run(1, { seal }), client.run(1, { hash: [{ kind: 'LOGIN', value: 'x' }] })]);
    expect(big.sealed).toHaveLength(300);
    expect(small.hash).toHaveLength(1);
    const back = await client.run(1, { open: big.sealed.map((ciphertext, i) => ({ table: 'users', rowId: `r${i}`, ciphertext })) });
    expect(back.opened.map(String)).toEqual(seal.map((s) => s.plaintext.toString()));
  });
});
