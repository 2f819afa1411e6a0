// Replicas sharing one keyring directory: two (three) real tokenizer processes on one keyring.json. A rotation
// through one is used by the others without a restart (on the first unknown version, on KeyringInfo, on the
// periodic check); rotations on both at once keep every version; a retirement on one does not break the other's
// calls in flight, and no later write of the other brings the retired version back.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTokenizer, shortTempDir, spawnTokenizer, type SpawnedTokenizer, type TokenizerTestClient } from '../fixtures/tokenizer.js';

const TENANT = 5;
const none = Buffer.alloc(0);
const base = { tenant_id: TENANT, tenant_salt: randomBytes(16) };

let dataDir: string;
const wrappingKey = randomBytes(32);
let procs: SpawnedTokenizer[] = [];
let a: TokenizerTestClient;
let b: TokenizerTestClient;
let pA: SpawnedTokenizer;
let pB: SpawnedTokenizer;

function fileVersions(): { active: number; versions: number[] } {
  const doc = JSON.parse(readFileSync(join(dataDir, 'tokenizer', 'keyring.json'), 'utf8')) as { active: number; versions: number[] };
  return { active: doc.active, versions: doc.versions };
}

/** A new person's key made through `via` (wrapped under its active version) and a record sealed under it. */
async function person(via: TokenizerTestClient, subject: string, text: string) {
  const res = await via.run({ ...base, new_key_subjects: [subject], seal: [{ table: 'users', row_id: subject, plaintext: Buffer.from(text), wrapped_key: none, subject }] });
  return { subject, wrapped: res.wrapped_keys[0]!, sealed: res.sealed[0]! };
}

async function opens(via: TokenizerTestClient, p: { subject: string; wrapped: Buffer; sealed: Buffer }): Promise<string> {
  const res = await via.run({ ...base, open: [{ table: 'users', row_id: p.subject, ciphertext: p.sealed, wrapped_key: p.wrapped, subject: p.subject }] });
  return res.opened[0]!.toString();
}

/** The master version a wrapped key names (format 0x01 header: the version, u32 BE, after the format byte). */
const versionOf = (wrapped: Buffer) => wrapped.readUInt32BE(1);

beforeAll(async () => {
  dataDir = shortTempDir();
  // No periodic check on A or B: what B learns, it learns from the calls themselves.
  pA = await spawnTokenizer({ dataDir, wrappingKey, socketPath: join(shortTempDir(), 'a.sock'), env: { STRONGROOM_TOKENIZER_KEYRING_CHECK_SECONDS: '0' } });
  pB = await spawnTokenizer({ dataDir, wrappingKey, socketPath: join(shortTempDir(), 'b.sock'), env: { STRONGROOM_TOKENIZER_KEYRING_CHECK_SECONDS: '0' } });
  procs = [pA, pB];
  a = connectTokenizer(pA.target);
  b = connectTokenizer(pB.target);
});

afterAll(async () => {
  a?.close();
  b?.close();
  await Promise.all(procs.map((p) => p.stop()));
});

describe('tokenizers sharing one keyring', () => {
  it('open data sealed under a version another one rotated to, without a restart, on the first call that needs it', async () => {
    const before = await person(a, 'p-before', 'one');
    expect(versionOf(before.wrapped)).toBe(1);
    expect(await a.rotate()).toBe(2);
    const after = await person(a, 'p-after', 'two');
    expect(versionOf(after.wrapped)).toBe(2);
    // B never asked for its keyring since: the unknown version 2 makes it read the file, and the call succeeds.
    expect(await opens(b, after)).toBe('two');
    expect(await opens(b, before)).toBe('one');
    // The log line reaches this process through B's stderr pipe, which a busy machine may deliver a little later.
    await expect.poll(() => pB.output()).toMatch(/"reason":"unknown-version".*keyring reloaded/);
    // And B now seals new keys under version 2 as well.
    expect(versionOf((await person(b, 'p-on-b', 'three')).wrapped)).toBe(2);
    expect((await b.keyringInfo()).versions).toEqual([1, 2]);
  });

  it('a version that is in no file stays unknown, and does not make a tokenizer read the file on every call', async () => {
    const p = await person(a, 'p-odd', 'x');
    const forged = Buffer.from(p.wrapped);
    forged.writeUInt32BE(999, 1);
    for (let i = 0; i < 5; i++) {
      await expect(opens(b, { ...p, wrapped: forged })).rejects.toThrow(/does not unwrap/);
    }
    const reloads = pB.output().match(/keyring reloaded/g)?.length ?? 0;
    expect(reloads).toBe(1);
  });

  it('keeps every version when both rotate at once, many times', async () => {
    const start = fileVersions().active;
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).rotate()));
    // Twelve rotations, twelve different versions, all in the file, none lost to a concurrent write.
    expect(new Set(answers).size).toBe(12);
    const expected = Array.from({ length: start + 12 }, (_, i) => i + 1);
    expect(fileVersions()).toEqual({ active: start + 12, versions: expected });
    for (const c of [a, b]) {
      const info = await c.keyringInfo();
      expect(info.versions).toEqual(expected);
      expect(info.active).toBe(start + 12);
    }
    // Keys made on either under the newest version open on the other.
    const onA = await person(a, 'p-race-a', 'from a');
    const onB = await person(b, 'p-race-b', 'from b');
    expect(versionOf(onA.wrapped)).toBe(start + 12);
    expect(versionOf(onB.wrapped)).toBe(start + 12);
    expect(await opens(b, onA)).toBe('from a');
    expect(await opens(a, onB)).toBe('from b');
  });

  it('a retirement on one does not break the other\'s calls under that version, and no later write brings it back', async () => {
    // Keys made in a call are never cached unwrapped: the first open of each below needs the master version itself.
    const inFlight = await person(b, 'p-in-flight', 'still here');
    const untouched = await person(b, 'p-untouched', 'gone');
    const old = versionOf(inFlight.wrapped);
    expect(versionOf(untouched.wrapped)).toBe(old);
    const active = await a.rotate();
    expect((await b.keyringInfo()).active).toBe(active);
    const left = await a.retire(old);
    expect(left).not.toContain(old);
    expect(fileVersions().versions).not.toContain(old);
    // A forgot it at once; B, which learns of it from the file, keeps it for opening a while.
    await expect(opens(a, inFlight)).rejects.toThrow(/does not unwrap/);
    expect(await opens(b, inFlight)).toBe('still here');
    const info = await b.keyringInfo();
    expect(info.versions).toEqual(left);
    // B's next write is made to the file as it is: the retired version stays retired.
    const next = await b.rotate();
    expect(next).toBe(active + 1);
    expect(fileVersions().versions).not.toContain(old);
    expect(fileVersions().versions).toContain(next);
    // Retiring it on B too (its own api's rewrapper would) succeeds, and then B forgets it.
    expect(await b.retire(old)).not.toContain(old);
    await expect(opens(b, untouched)).rejects.toThrow(/does not unwrap/);
  });

  it('loses no version when four processes rotate as fast as they can at once (the file lock)', async () => {
    const script = fileURLToPath(new URL('../fixtures/rotate-many.ts', import.meta.url));
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const file = join(dataDir, 'tokenizer', 'keyring.json');
    const start = fileVersions();
    const runs = await Promise.all(
      [1, 2, 3, 4].map(() => promisify(execFile)(process.execPath, ['--import', tsx, script, file, wrappingKey.toString('hex'), '15'], { timeout: 60_000 })),
    );
    const made = runs.flatMap((r) => JSON.parse(r.stdout) as number[]);
    expect(new Set(made).size).toBe(60);
    const now = fileVersions();
    expect(now.active).toBe(start.active + 60);
    expect(now.versions).toEqual([...start.versions, ...Array.from({ length: 60 }, (_, i) => start.active + 1 + i)]);
    // The tokenizers take them all.
    expect((await a.keyringInfo()).versions).toEqual(now.versions);
    expect((await b.keyringInfo()).versions).toEqual(now.versions);
  });

  it('a third tokenizer picks up a rotation on its periodic check, with a log line', async () => {
    const third = await spawnTokenizer({ dataDir, wrappingKey, socketPath: join(shortTempDir(), 'c.sock'), env: { STRONGROOM_TOKENIZER_KEYRING_CHECK_SECONDS: '0.2' } });
    procs.push(third);
    const active = await a.rotate();
    await expect.poll(() => third.output(), { timeout: 10_000 }).toMatch(new RegExp(`"reason":"periodic".*"active":${active}|"active":${active}.*"reason":"periodic"`));
  });
});
