// The api's tokenizer client against the real tokenizer process: merged calls give each caller its own answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { connectTokenizer, spawnTokenizer, shortTempDir, type SpawnedTokenizer } from '../fixtures/tokenizer.js';
import { TokenizerClient, TokenizerRejectedError } from '../../api/tokenizer-client.js';
import { UnavailableError } from '../../api/errors.js';

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
    // Linked from a head the tokenizer made: it links from no other without a proof (a head forged in the database).
    const previous = (await client.chainInRun(1, { previous: Buffer.alloc(0), firstSeq: 1, canonical: texts(40, 'h') })).links.at(-1)!;
    await expect(client.chainInRun(1, { previous: Buffer.alloc(32, 7), firstSeq: 41, canonical: ['x'] })).rejects.toThrow(/audit trail is broken/);
    const direct = await client.chainAudit(1, previous, 41, texts(5, 'a'));
    // Two chain runs and an open in the same turn: one merged Run, each caller its own links.
    const sealed = await sealOne(1, 'with-chain', 'rides along');
    const [viaRun, other, opened] = await Promise.all([
      client.chainInRun(1, { previous, firstSeq: 41, canonical: texts(5, 'a') }).then((r) => r.links),
      client.chainInRun(1, { previous: Buffer.alloc(0), firstSeq: 1, canonical: texts(3, 'b') }).then((r) => r.links),
      client.run(1, { open: [{ table: 'users', rowId: 'with-chain', ciphertext: sealed }] }),
    ]);
    expect(viaRun.map((l) => l.toString('hex'))).toEqual(direct.map((l) => l.toString('hex')));
    expect(other).toEqual(await client.chainAudit(1, Buffer.alloc(0), 1, texts(3, 'b')));
    expect(opened.opened[0]!.toString()).toBe('rides along');
    // Another tenant's key links differently; a bad item is refused for its caller alone.
    expect((await client.chainInRun(2, { previous: Buffer.alloc(0), firstSeq: 1, canonical: texts(3, 'b') })).links[0]!.equals(other[0]!)).toBe(false);
    const outcomes = await Promise.allSettled([client.chainInRun(1, { previous: Buffer.alloc(5), firstSeq: 1, canonical: ['x'] }), client.chainInRun(1, { previous, firstSeq: 41, canonical: texts(5, 'a') })]);
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

// Small batches travel as messages on one RunStream. Each caller must get its own answer by id, whatever order the
// batches finish in; a restart of the tokenizer must be ridden out as Run's waitForReady does; a tokenizer that
// stays away must fail the call at its deadline, not hang it.
describe('TokenizerClient on the RunStream', () => {
  it('answers every caller its own batch, by id, against the same batch run alone (fast-check)', async () => {
    const direct = connectTokenizer(tokenizer.target);
    try {
      const item = fc.oneof(
        fc.record({ kind: fc.constant('hash' as const), value: fc.string({ maxLength: 40 }) }),
        fc.record({ kind: fc.constant('seal' as const), value: fc.string({ maxLength: 3000 }) }),
        fc.record({ kind: fc.constant('bad' as const), value: fc.constant('') }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.array(item, { minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 24 }), async (calls) => {
          const outcomes = await Promise.allSettled(
            calls.map(([tenant, items], c) =>
              client.run(tenant, {
                hash: items.filter((i) => i.kind === 'hash').map((i) => ({ kind: 'LOGIN' as const, value: i.value })),
                seal: items.filter((i) => i.kind === 'seal').map((i, k) => ({ table: 'users', rowId: `p-${c}-${k}`, plaintext: Buffer.from(i.value) })),
                // A ciphertext that does not open: its caller alone is refused.
                open: items.filter((i) => i.kind === 'bad').map((_, k) => ({ table: 'users', rowId: `bad-${c}-${k}`, ciphertext: Buffer.alloc(40, 1) })),
              }),
            ),
          );
          for (const [c, [tenant, items]] of calls.entries()) {
            const outcome = outcomes[c]!;
            if (items.some((i) => i.kind === 'bad')) {
              expect(outcome.status).toBe('rejected');
              expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(TokenizerRejectedError);
              continue;
            }
            expect(outcome.status).toBe('fulfilled');
            const got = (outcome as PromiseFulfilledResult<Awaited<ReturnType<typeof client.run>>>).value;
            const hashes = items.filter((i) => i.kind === 'hash');
            const alone = await direct.run({ tenant_id: tenant, hash: hashes.map((i) => ({ kind: 'LOGIN', value: i.value })) });
            expect(got.hash).toEqual(alone.hash);
            const seals = items.filter((i) => i.kind === 'seal');
            expect(got.sealed).toHaveLength(seals.length);
            if (seals.length) {
              const opened = await direct.run({ tenant_id: tenant, open: got.sealed.map((ciphertext, k) => ({ table: 'users', row_id: `p-${c}-${k}`, ciphertext })) });
              expect(opened.opened.map(String)).toEqual(seals.map((i) => i.value));
            }
          }
        }),
        { numRuns: 40 },
      );
    } finally {
      direct.close();
    }
  });

  it('rides out a crash of the tokenizer: batches lost with the stream are sent again once it is back', async () => {
    const dataDir = shortTempDir();
    let restartable = await spawnTokenizer({ dataDir });
    const own = new TokenizerClient(restartable.target, 15_000);
    try {
      const hash = (value: string) => own.run(1, { hash: [{ kind: 'LOGIN', value }] }).then((r) => r.hash[0]!.toString('hex'));
      const before = await hash('alice');
      // Sent, and the tokenizer killed before it can answer them all; then calls made while it is down.
      const inFlight = Array.from({ length: 40 }, (_, i) => hash(i % 2 ? 'alice' : `bob-${i}`));
      await restartable.stop('SIGKILL');
      const whileDown = Array.from({ length: 10 }, (_, i) => hash(i % 2 ? 'alice' : `carol-${i}`));
      restartable = await spawnTokenizer({ dataDir, socketPath: restartable.socketPath });
      const answered = await Promise.all([...inFlight, ...whileDown]);
      expect(answered.filter((_, i) => i % 2)).toEqual(Array(25).fill(before));
      expect(await hash('alice')).toBe(before);
    } finally {
      own.close();
      await restartable.stop();
    }
  });

  it('fails a call at its deadline with UnavailableError while the tokenizer stays away, and closes without waiting on the stream', async () => {
    const dataDir = shortTempDir();
    const gone = await spawnTokenizer({ dataDir });
    const own = new TokenizerClient(gone.target, 700);
    try {
      await own.run(1, { hash: [{ kind: 'LOGIN', value: 'x' }] });
      await gone.stop();
      const started = Date.now();
      await expect(own.run(1, { hash: [{ kind: 'LOGIN', value: 'x' }] })).rejects.toBeInstanceOf(UnavailableError);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      own.close();
    }
    // A tokenizer with an open stream stops as soon as the stream's batches are answered, not after its grace period.
    const serving = await spawnTokenizer({ dataDir: shortTempDir() });
    const streaming = new TokenizerClient(serving.target, 5_000);
    await streaming.run(1, { hash: [{ kind: 'LOGIN', value: 'x' }] });
    const stopping = Date.now();
    await serving.stop();
    expect(Date.now() - stopping).toBeLessThan(4_000);
    streaming.close();
  });
});
