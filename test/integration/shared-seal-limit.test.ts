// The seal limit with replicas sharing one keyring directory: two real tokenizer processes, each counting its own
// seals in a file of its own, rotate on the sum of all files. Here the limit is 40 seals and each makes 30: neither
// would reach it alone, together they do, and the keyring rotates exactly once (the second to reach it finds the
// version already rotated under the keyring's lock). A stopped tokenizer's seals keep counting.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { connectTokenizer, shortTempDir, spawnTokenizer, type SpawnedTokenizer, type TokenizerTestClient } from '../fixtures/tokenizer.js';

const LIMIT = 40;
const env = { STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS: String(LIMIT), STRONGROOM_TOKENIZER_KEYRING_CHECK_SECONDS: '0' };
const base = { tenant_id: 3, tenant_salt: randomBytes(16) };

let procs: SpawnedTokenizer[] = [];
let clients: TokenizerTestClient[] = [];

afterEach(async () => {
  for (const c of clients) c.close();
  await Promise.all(procs.map((p) => p.stop()));
  procs = [];
  clients = [];
});

async function start(dataDir: string, wrappingKey: Buffer, name: string) {
  const proc = await spawnTokenizer({ dataDir, wrappingKey, socketPath: join(shortTempDir(), `${name}.sock`), env });
  const client = connectTokenizer(proc.target);
  procs.push(proc);
  clients.push(client);
  return { proc, client };
}

/** `n` calls, one after the other, each making a new person's key: one counted seal (a wrap) per call. */
async function newKeys(via: TokenizerTestClient, n: number): Promise<number[]> {
  const versions: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await via.run({ ...base, new_key_subjects: [randomBytes(8).toString('hex')] });
    versions.push(res.wrapped_keys[0]!.readUInt32BE(1));
  }
  return versions;
}

const keyringDoc = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'tokenizer', 'keyring.json'), 'utf8')) as { active: number; versions: number[] };

/** Each instance file's own counts, as written. */
function instanceFiles(dataDir: string): { closed: boolean; seals: Record<string, number> }[] {
  const dir = join(dataDir, 'tokenizer');
  return readdirSync(dir)
    .filter((n) => /^keyring\.json\.seals\.[0-9a-f]{16}$/.test(n))
    .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as { closed: boolean; seals: Record<string, number> });
}

const rotations = (p: SpawnedTokenizer) => p.output().match(/master key rotated/g)?.length ?? 0;

describe('the seal limit on a shared keyring', () => {
  it('rotates exactly once when two tokenizers together, and neither alone, reach it', async () => {
    const dataDir = shortTempDir();
    const wrappingKey = randomBytes(32);
    const a = await start(dataDir, wrappingKey, 'a');
    const b = await start(dataDir, wrappingKey, 'b');
    const [onA, onB] = await Promise.all([newKeys(a.client, 30), newKeys(b.client, 30)]);
    // 30 each, under the 40 of the setting; 60 together.
    expect(keyringDoc(dataDir)).toMatchObject({ active: 2, versions: [1, 2] });
    // The logs arrive through pipes: wait for them, not for a time.
    await expect.poll(() => rotations(a.proc) + rotations(b.proc)).toBe(1);
    await expect.poll(() => a.proc.output() + b.proc.output()).toContain('master key version nears its seal limit');
    // Each file holds only its own seals; the sum (KeyringInfo, the same from either) holds them all.
    const files = instanceFiles(dataDir);
    expect(files).toHaveLength(2);
    for (const f of files) expect((f.seals['1'] ?? 0) + (f.seals['2'] ?? 0)).toBe(30);
    const underOne = [...onA, ...onB].filter((v) => v === 1).length;
    expect(underOne).toBeGreaterThanOrEqual(LIMIT);
    for (const c of [a.client, b.client]) {
      const info = await c.keyringInfo();
      expect(info.active).toBe(2);
      expect(Number(info.seals['1'])).toBe(underOne);
      expect(Number(info.seals['2'] ?? 0)).toBe(60 - underOne);
    }
    // Both seal under the new version now, and no further rotation followed.
    expect(await newKeys(a.client, 1)).toEqual([2]);
    expect(await newKeys(b.client, 1)).toEqual([2]);
    expect(keyringDoc(dataDir).versions).toEqual([1, 2]);
    expect(rotations(a.proc) + rotations(b.proc)).toBe(1);
  });

  it('counts the seals of a tokenizer that has stopped', async () => {
    const dataDir = shortTempDir();
    const wrappingKey = randomBytes(32);
    const a = await start(dataDir, wrappingKey, 'a');
    expect(await newKeys(a.client, 25)).toEqual(Array(25).fill(1));
    await a.proc.stop();
    expect(instanceFiles(dataDir)).toEqual([expect.objectContaining({ closed: true, seals: { 1: 25 } })]);
    const b = await start(dataDir, wrappingKey, 'b');
    expect(Number((await b.client.keyringInfo()).seals['1'])).toBe(25);
    await newKeys(b.client, 14);
    expect(keyringDoc(dataDir).active).toBe(1);
    await newKeys(b.client, 1);
    expect(keyringDoc(dataDir)).toMatchObject({ active: 2, versions: [1, 2] });
    await expect.poll(() => rotations(b.proc)).toBe(1);
  });
});
