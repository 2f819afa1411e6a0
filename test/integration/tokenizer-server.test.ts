// The gRPC server in-process: health Watch, TCP alongside the socket, socket safety, live key rotation, shutdown.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizerConfig } from '../../tokenizer/config.js';
import { startTokenizer, type RunningTokenizer } from '../../tokenizer/server.js';
import { loadTokenizerPackage, TOKENIZER_SERVICE } from '../../proto/loader.js';
import { connectTokenizer, healthCheck, shortTempDir, type TokenizerTestClient } from '../fixtures/tokenizer.js';
import pino from 'pino';

const log = pino({ level: 'silent' });
const quiet = { log, notice: () => {} };

function configFor(dataDir: string, extra: Record<string, string> = {}) {
  return { ...loadTokenizerConfig({ STRONGROOM_DATA_DIR: dataDir, ...extra }), tcpAddress: '127.0.0.1:0' };
}

let dataDir: string;
let tokenizer: RunningTokenizer;
let client: TokenizerTestClient;

beforeAll(async () => {
  dataDir = shortTempDir();
  tokenizer = await startTokenizer(configFor(dataDir), quiet);
  client = connectTokenizer(`unix:${tokenizer.socketPath}`);
});
afterAll(async () => {
  client?.close();
  await tokenizer?.close();
});

describe('tokenizer server (in-process)', () => {
  it('serves the same service on TCP as on the unix socket', async () => {
    expect(tokenizer.tcpPort).toBeGreaterThan(0);
    const tcp = connectTokenizer(`127.0.0.1:${tokenizer.tcpPort}`);
    try {
      const viaTcp = await tcp.run({ tenant_id: 2, hash: [{ kind: 'LOGIN', value: 'ada' }] });
      const viaSocket = await client.run({ tenant_id: 2, hash: [{ kind: 'LOGIN', value: 'ada' }] });
      expect(viaTcp.hash[0]!.equals(viaSocket.hash[0]!)).toBe(true);
    } finally {
      tcp.close();
    }
  });

  it('answers health checks for the server and the service, NOT_FOUND for others', async () => {
    expect(await healthCheck(`unix:${tokenizer.socketPath}`, 1000, '')).toBe('SERVING');
    expect(await healthCheck(`unix:${tokenizer.socketPath}`, 1000, TOKENIZER_SERVICE)).toBe('SERVING');
    await expect(healthCheck(`unix:${tokenizer.socketPath}`, 1000, 'nope')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it('seals new records under a rotated key at once, and reports it in KeyringInfo', async () => {
    const before = await client.run({ tenant_id: 3, seal: [{ table: 't', row_id: 'r', plaintext: Buffer.from('v1') }], hash: [{ kind: 'EMAIL', value: 'a@b.c' }] });
    tokenizer.keyring!.rotate();
    expect(await client.keyringInfo()).toMatchObject({ versions: [1, 2], active: 2 });
    const after = await client.run({
      tenant_id: 3,
      seal: [{ table: 't', row_id: 'r', plaintext: Buffer.from('v2') }],
      open: [{ table: 't', row_id: 'r', ciphertext: before.sealed[0]! }],
      hash: [{ kind: 'EMAIL', value: 'a@b.c' }],
    });
    expect(before.sealed[0]!.readUInt32BE(1)).toBe(1);
    expect(after.sealed[0]!.readUInt32BE(1)).toBe(2);
    expect(after.opened[0]!.toString()).toBe('v1');
    expect(after.hash[0]!.equals(before.hash[0]!)).toBe(true);
  });

  it('refuses to take over a socket another tokenizer is serving on, or a path that is not a socket', async () => {
    await expect(startTokenizer(configFor(dataDir), quiet)).rejects.toThrow(/already serving/);
    const other = shortTempDir();
    mkdirSync(join(other, 'run'));
    writeFileSync(join(other, 'run', 'tokenizer.sock'), 'not a socket');
    await expect(startTokenizer(configFor(other), quiet)).rejects.toThrow(/is not a socket/);
    expect(await healthCheck(`unix:${tokenizer.socketPath}`)).toBe('SERVING');
  });

  it('releases the socket when the TCP port cannot be bound', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const port = (blocker.address() as AddressInfo).port;
    const dir = shortTempDir();
    try {
      await expect(startTokenizer({ ...configFor(dir), tcpAddress: `127.0.0.1:${port}` }, quiet)).rejects.toThrow();
    } finally {
      blocker.close();
    }
    const t = await startTokenizer(configFor(dir), quiet);
    expect(await healthCheck(`unix:${t.socketPath}`)).toBe('SERVING');
    await t.close();
  });

  it('ends health watches with NOT_SERVING on close, and removes its socket', async () => {
    const dir = shortTempDir();
    const t = await startTokenizer(configFor(dir), quiet);
    const health = new (loadTokenizerPackage().Health)(`unix:${t.socketPath}`, grpc.credentials.createInsecure());
    const seen: string[] = [];
    const stream = health.Watch({ service: TOKENIZER_SERVICE });
    const ended = new Promise<void>((resolve, reject) => {
      stream.on('data', (m: { status: string }) => {
        seen.push(m.status);
        if (m.status === 'SERVING') void t.close(5_000);
      });
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    await ended;
    health.close();
    expect(seen).toEqual(['SERVING', 'NOT_SERVING']);
    expect(existsSync(t.socketPath)).toBe(false);
  });
});
