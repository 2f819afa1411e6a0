// The real tokenizer process over gRPC: batches past 4 MiB, bad input, deadlines, restart, wrapping keys.
import { mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTokenizer, healthCheck, type SpawnedTokenizer } from '../fixtures/tokenizer.js';
import { TokenizerClient, TokenizerRejectedError } from '../../api/tokenizer-client.js';
import { UnavailableError } from '../../api/http/errors.js';

let dataDir: string;
let tokenizer: SpawnedTokenizer;
let client: TokenizerClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'srt-'));
  tokenizer = await spawnTokenizer({ dataDir });
  client = new TokenizerClient(`unix:${tokenizer.socketPath}`, 10_000);
});
afterAll(async () => {
  client?.close();
  await tokenizer?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('tokenizer process', () => {
  it('creates a development keyring on first start and says so once', () => {
    expect(existsSync(join(dataDir, 'tokenizer', 'keyring.json'))).toBe(true);
    expect(readFileSync(join(dataDir, 'tokenizer', 'wrapping.key'), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenizer.output()).toMatch(/created a new keyring/);
  });

  it('reports SERVING on the standard health service', async () => {
    expect(await healthCheck(`unix:${tokenizer.socketPath}`)).toBe('SERVING');
    expect(await client.keyringInfo()).toEqual({ versions: [1], active: 1 });
  });

  it('hashes, seals and opens a batch larger than 4 MiB in one call', async () => {
    const n = 1000;
    // About 5.5 KB each: 5.5 MB in all, past gRPC's 4 MiB default.
    const plaintexts = Array.from({ length: n }, (_, i) => Buffer.from(`{"i":${i},"pad":"${randomBytes(2750).toString('hex')}"}`));
    const started = performance.now();
    const sealedRes = await client.run(5, {
      hash: Array.from({ length: 4 * n }, (_, i) => ({ kind: 'EMAIL' as const, value: `u${i}@example.com` })),
      seal: plaintexts.map((p, i) => ({ table: 'users', rowId: `row-${i}`, plaintext: p })),
    });
    const opened = await client.run(5, {
      open: sealedRes.sealed.map((c, i) => ({ table: 'users', rowId: `row-${i}`, ciphertext: c })),
    });
    const ms = performance.now() - started;
    console.log(`tokenizer: 1000 × 5.5 KB seal + 4000 hashes + 1000 opens over the socket: ${ms.toFixed(1)} ms`);
    expect(sealedRes.hash).toHaveLength(4 * n);
    expect(sealedRes.sealed).toHaveLength(n);
    expect(opened.opened.every((p, i) => p.equals(plaintexts[i]!))).toBe(true);
  });

  it('answers bad input with INVALID_ARGUMENT and keeps serving', async () => {
    await expect(client.run(5, { open: [{ table: 'users', rowId: 'row-1', ciphertext: Buffer.from('garbage') }] })).rejects.toThrow(TokenizerRejectedError);
    await expect(client.run(0, {})).rejects.toThrow(/tenant_id/);
    await expect(client.run(1, { seal: [{ table: '', rowId: 'x', plaintext: Buffer.from('x') }] })).rejects.toThrow(/seal\[0\]\.table/);
    const ok = await client.run(5, { hash: [{ kind: 'LOGIN', value: 'still-alive' }] });
    expect(ok.hash[0]).toHaveLength(32);
  });

  it('fails a call past its deadline with a clear unavailability, not a hang', async () => {
    const impatient = new TokenizerClient(`unix:${tokenizer.socketPath}`, 100);
    const huge = Array.from({ length: 20_000 }, (_, i) => ({ table: 'users', rowId: `r${i}`, plaintext: randomBytes(8192) }));
    await expect(impatient.run(1, { seal: huge })).rejects.toThrow(UnavailableError);
    impatient.close();
    expect(await healthCheck(`unix:${tokenizer.socketPath}`)).toBe('SERVING');
  });

  it('opens old ciphertexts after a restart on the same data directory', async () => {
    const { sealed } = await client.run(9, { seal: [{ table: 't', rowId: 'r', plaintext: Buffer.from('kept') }], hash: [{ kind: 'EMAIL', value: 'k@x.io' }] });
    const { hash } = await client.run(9, { hash: [{ kind: 'EMAIL', value: 'k@x.io' }] });
    await tokenizer.stop();
    tokenizer = await spawnTokenizer({ dataDir });
    client.close();
    client = new TokenizerClient(`unix:${tokenizer.socketPath}`, 10_000);
    const again = await client.run(9, { open: [{ table: 't', rowId: 'r', ciphertext: sealed[0]! }], hash: [{ kind: 'EMAIL', value: 'k@x.io' }] });
    expect(again.opened[0]!.toString()).toBe('kept');
    expect(again.hash[0]!.equals(hash[0]!)).toBe(true);
    expect(tokenizer.output()).not.toMatch(/created a new keyring/);
  });

  it('refuses to start with the wrong wrapping key', async () => {
    const socketPath = join(dataDir, 'run', 'other.sock');
    await expect(spawnTokenizer({ dataDir, socketPath, env: { STRONGROOM_WRAPPING_KEY: randomBytes(32).toString('hex') } })).rejects.toThrow(/wrapping key does not open the keyring/);
  });

  it('uses a supplied wrapping key and writes no key file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'srt-'));
    const t = await spawnTokenizer({ dataDir: dir, env: { STRONGROOM_WRAPPING_KEY: randomBytes(32).toString('hex') } });
    try {
      expect(existsSync(join(dir, 'tokenizer', 'keyring.json'))).toBe(true);
      expect(existsSync(join(dir, 'tokenizer', 'wrapping.key'))).toBe(false);
    } finally {
      await t.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
